"""Reports, round seventeen: a signal that arrives while a report is written.

A verify run's report is written once, at its end, after minutes of checks: Ctrl-C pressed a second time, or a CI
job's time limit (SIGTERM, which `errorkb verify` turns into an interrupt) arriving while the merged file was read,
combined and written, stopped the write half way. The file on disk stayed whole (the write is atomic), but the run's
results were gone, with no word of them. Now the write holds those signals until the file is whole (written, or
refused with the run's data rescued), then they act.
"""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from errorkb.results import store


def _raise(signum, frame):  # `errorkb verify`'s SIGTERM handler: an interrupt
    raise KeyboardInterrupt


@pytest.fixture
def sigterm_interrupts():
    """SIGTERM raises as errorkb's CLI makes it, and SIGINT is Python's own handler, as in a terminal: a process a
    non-interactive shell starts in the background (CI's `bash .ci/run &`) inherits SIGINT ignored, and Python keeps
    it so (the held signal then rightly never acts)."""
    earlier = signal.signal(signal.SIGTERM, _raise), signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGTERM, earlier[0])
    signal.signal(signal.SIGINT, earlier[1])


def _write(path: Path, signum: int, stage: str) -> None:
    """`store.update` of `path` with this run's {"new": 1}, `signum` sent to this process during `stage`."""
    def read(at: Path) -> dict | None:
        if stage == "read":
            os.kill(os.getpid(), signum)
        text = store.read_regular(at)
        return None if text is None else json.loads(text)

    def combine(current: dict | None) -> dict:
        if stage == "combine":
            os.kill(os.getpid(), signum)
        return {**(current or {}), "new": 1}

    def text(data: dict) -> str:
        if stage == "text":
            os.kill(os.getpid(), signum)
        return json.dumps(data, sort_keys=True) + "\n"

    store.update(path, read, combine, text, "restore it")


@pytest.mark.parametrize("stage", ["read", "combine", "text"])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_report_is_written_acts_once_the_file_holds_the_run(tmp_path, sigterm_interrupts, stage,
                                                                                 signum):
    path = tmp_path / "latest.json"
    path.write_text('{"old": 1}\n')
    with pytest.raises(KeyboardInterrupt):
        _write(path, signum, stage)
    assert json.loads(path.read_text()) == {"new": 1, "old": 1}  # the run's results, merged: nothing lost
    assert store.leftovers(path) == []


def test_the_signals_are_held_no_longer_than_the_write(tmp_path, sigterm_interrupts):
    path = tmp_path / "latest.json"
    store.update(path, lambda at: None, lambda current: {"new": 1}, lambda data: json.dumps(data), "restore it")
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) & {signal.SIGINT, signal.SIGTERM} == set()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)


def test_a_refused_write_still_rescues_the_run_before_the_signal_acts(tmp_path, sigterm_interrupts):
    path = tmp_path / "latest.json"
    path.write_text("{cut")
    rescued = []

    def read(at: Path) -> dict | None:
        os.kill(os.getpid(), signal.SIGTERM)
        raise store.Unreadable(f"{at}: does not parse")

    with pytest.raises((KeyboardInterrupt, store.Refused)) as raised:
        store.update(path, read, lambda current: {"new": 1}, lambda data: json.dumps(data), "restore it")
    rescued = sorted(tmp_path.glob("latest.rescued-*.json"))
    assert path.read_text() == "{cut" and len(rescued) == 1 and json.loads(rescued[0].read_text()) == {"new": 1}, (
        raised.value)


# -- shards merged: `errorkb verify --shard K/N` files joined by `errorkb report merge` ------------------------------

def _sharded(checks: list[dict], shard: str | None, created: str = "2026-11-30T10:00:00+00:00"):
    from errorkb.results.report import Report

    return Report.model_validate({"schema": 2, "verifier": "2", "created": created,
                                  "environment": {"python": "3.11.7"}, "targets": {"bundled": "bundled-test"},
                                  "run": {"shard": shard}, "checks": checks})


def _record(entry: str, role: str, when: str, outcome: str = "pass") -> dict:
    code = {"pass": "ran-clean" if role != "before" else "raised-as-documented", "fail": "raised"}[outcome]
    return {"id": f"{entry}::{role}[bundled-cpu]", "entry": entry, "role": role, "snippet": f"snippets/{entry}/x.py",
            "snippet_sha256": "0" * 64, "target": "bundled", "device": "cpu", "outcome": outcome, "code": code,
            "reason": "ok", "expected": "as documented", "verified_at": when, "inputs": "i" * 64}


def _split(n: int) -> dict[int, list[dict]]:
    """Records of checks, by the shard of n that `errorkb verify --shard` gives each (at least two per shard)."""
    from errorkb.verify.plan import shard_of

    found: dict[int, list[dict]] = {k: [] for k in range(1, n + 1)}
    for number in range(200):
        one = _record(f"entry-{number}", "after", "2026-11-30T09:00:00+00:00")
        found[shard_of(one["id"], n)].append(one)
        if all(len(records) >= 2 for records in found.values()):
            return found
    raise AssertionError("no split")


def _merged(named):
    from errorkb.results.report import merge, of_own_shards
    from errorkb.verify.plan import shard_of

    reports, said = of_own_shards(named, shard_of)
    return merge(reports, [name for name, _ in named]), said


def test_a_shard_s_newer_record_of_another_shard_s_check_is_left_out_and_said():
    split = _split(2)
    mine, theirs = split[1][0], split[2][0]
    claim = {**theirs, "outcome": "fail", "code": "raised", "verified_at": "2026-11-30T11:00:00+00:00"}
    one = _sharded([mine, claim], "1/2")
    two = _sharded([{**theirs, "verified_at": "2026-11-30T10:00:00+00:00"}], "2/2")
    merged, said = _merged([("one.json", one), ("two.json", two)])
    kept = {check.id: check for check in merged.checks}
    assert kept[theirs["id"]].outcome.value == "pass"  # the shard that ran it
    assert kept[mine["id"]].outcome.value == "pass"
    assert any("one.json" in line and "1/2" in line and "1 record" in line and theirs["id"] in line
               for line in said), said


def test_records_a_shard_holds_from_before_of_other_shards_checks_are_no_claim():
    """Each shard's file is the checkout's report with its own checks run again: the others' records, older than
    the shard that ran them, are the same committed records, and never said."""
    split = _split(2)
    committed = [*split[1], *split[2]]
    one = _sharded([{**record, "verified_at": "2026-11-30T12:00:00+00:00"} for record in split[1]] + split[2], "1/2")
    two = _sharded(split[1] + [{**record, "verified_at": "2026-11-30T12:30:00+00:00"} for record in split[2]], "2/2")
    merged, said = _merged([("one.json", one), ("two.json", two)])
    assert said == []
    assert {check.id for check in merged.checks} == {record["id"] for record in committed}
    assert all(check.verified_at.startswith("2026-11-30T12") for check in merged.checks)


def test_shards_of_different_splits_missing_or_given_twice_are_said_and_every_record_kept():
    split2, split3 = _split(2), _split(3)
    cases = {
        "different": ([("a.json", _sharded(split2[1], "1/2")), ("b.json", _sharded(split3[2], "2/3"))],
                      ["different splits", "a.json", "1/2", "b.json", "2/3"]),
        "missing": ([("a.json", _sharded(split3[1], "1/3")), ("c.json", _sharded(split3[3], "3/3"))],
                    ["2/3", "not among"]),
        "twice": ([("a.json", _sharded(split2[1], "1/2")), ("b.json", _sharded(split2[2], "2/2")),
                   ("again.json", _sharded(split2[1], "1/2"))], ["1/2", "a.json", "again.json", "twice"]),
    }
    for case, (named, words) in cases.items():
        merged, said = _merged(named)
        assert any(all(word in line for word in words) for line in said), (case, said)
        everything = {check["id"] for _, report in named for check in report.model_dump(mode="json")["checks"]}
        assert {check.id for check in merged.checks} == everything, case


def test_one_whole_run_and_the_shards_of_one_split_say_nothing():
    split = _split(3)
    named = [(f"{k}.json", _sharded(split[k], f"{k}/3")) for k in (1, 2, 3)]
    named.append(("whole.json", _sharded([record for k in (1, 2, 3) for record in split[k]], None)))
    merged, said = _merged(named)
    assert said == [] and len(merged.checks) == sum(len(records) for records in split.values())


def test_report_merge_says_and_leaves_out_a_shard_s_claim_on_another_shard_s_check(tmp_path, capsys):
    from errorkb.cli import main
    from errorkb.verify.plan import shard_of
    from tests.site.sitekb import site_project

    project = site_project(tmp_path / "kb")
    ids = sorted(path.name for path in (project / "snippets").iterdir())

    records = [_record(entry, role, "2026-11-30T09:00:00+00:00") for entry in ids for role in ("before", "after")]
    by = {k: [r for r in records if shard_of(r["id"], 2) == k] for k in (1, 2)}
    assert by[1] and by[2]
    claim = {**by[2][0], "outcome": "fail", "code": "raised", "verified_at": "2026-11-30T11:00:00+00:00"}
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(_sharded([*by[1], claim], "1/2").text())
    two.write_text(_sharded(by[2], "2/2").text())
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(one), str(two)]) == 0
    said = capsys.readouterr().err
    assert "one.json" in said and "1/2" in said and by[2][0]["id"] in said, said
    from errorkb.results.report import read_report

    kept = {check.id: check for check in read_report(out).checks}
    assert kept[claim["id"]].outcome.value == "pass"


# -- a disk that is really full ------------------------------------------------------------------------------------

_FULL_DISK = r"""
import json, os, sys, tempfile
from pathlib import Path
from errorkb.results import store

folder = Path(sys.argv[1])
path = folder / "latest.json"
path.write_text('{"old": 1}\n')
run = {"new": "x" * 200_000}  # more than the 64 KiB the disk holds
try:
    store.update(path, lambda at: json.loads(at.read_text()), lambda current: {**(current or {}), **run},
                 lambda data: json.dumps(data), "restore it")
except store.Refused as refused:
    rescued = refused.rescued
    print(json.dumps({"said": str(refused), "old": path.read_text(), "left": [p.name for p in folder.iterdir()],
                      "rescued": json.loads(rescued.read_text()) == {"old": 1, **run} or
                                 json.loads(rescued.read_text()) == run}))
    rescued.unlink()
"""


def test_a_really_full_disk_keeps_the_old_report_and_the_run_s_results_elsewhere(tmp_path):
    """A 64 KiB tmpfs (`unshare -m`, where the machine allows it): the write fails with ENOSPC, not a fake's."""
    import shutil
    import subprocess
    import sys

    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("no mount namespace here (unshare -m): the fakes of test_reports_write stand in")
    disk = tmp_path / "disk"
    disk.mkdir()
    script = tmp_path / "full.py"
    script.write_text(_FULL_DISK)
    command = f"mount -t tmpfs -o size=64k tmpfs {disk} && {sys.executable} {script} {disk}"
    run = subprocess.run(["unshare", "-m", "sh", "-c", command], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    found = json.loads(run.stdout)
    assert found["old"] == '{"old": 1}\n' and found["left"] == ["latest.json"], found  # whole, no temporary left
    assert os.strerror(28) in found["said"] and "free space" in found["said"] and found["rescued"], found
