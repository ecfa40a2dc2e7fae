"""Round twenty-one: what the verifier trusts around the observer.

The verdict cache is read as untrusted input: a record is the harness's verdict only where nobody but the user
running errorkb could have written it (another user's file, or one others may write, is no verdict observed here).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from errorkb.core.project import load_project
from errorkb.core.snippets import Role, read_snippet
from errorkb.results.report import read_report
from errorkb.verify import cache as cache_module
from errorkb.verify.cache import VerdictCache
from errorkb.verify.judge import judge as judge_with
from errorkb.verify.plan import Check
from errorkb.verify.records import Outcome
from tests.verify.containment import HONEST, MODULE, TORCH, run_snippet  # its fixtures: tests/verify/conftest.py

_KEY = "0" * 64


def _stored(folder: Path) -> Path:
    """A passing record stored under `_KEY` by the harness, and its file."""
    here = load_project(Path(__file__).resolve().parents[2])
    (record, *_) = read_report(here.reports / "latest.json").checks
    VerdictCache(folder).put(_KEY, record.model_copy(update={"key": _KEY, "outcome": Outcome.PASS}))
    path = folder / "verify" / f"{_KEY}.json"
    assert VerdictCache(folder).get(_KEY) is not None, "the harness's own record is a hit"
    return path


def _another_user_owns(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`path` as another user's file: given away where this process is root, else this process made someone else."""
    if os.geteuid() == 0:
        os.chown(path, 65534, 65534)
    else:
        real = os.geteuid()
        monkeypatch.setattr(cache_module.os, "geteuid", lambda: real + 1)


def test_a_record_another_user_owns_is_never_reused(tmp_path, monkeypatch):
    """A cache folder another user can write (a shared checkout, a group-writable project): they write a record
    under a check's public key, its verdict a pass, and the run reused it as its own, `cached`, as if this
    harness had observed it. Their file is nobody's verdict here: a miss, counted, and the check runs."""
    path = _stored(tmp_path)
    _another_user_owns(path, monkeypatch)
    reader = VerdictCache(tmp_path)
    assert reader.get(_KEY) is None and reader.misses == 1 and reader.hits == 0
    assert reader.stats()["foreign"] == 1


@pytest.mark.parametrize("bits", [stat.S_IWGRP, stat.S_IWOTH])
def test_a_record_others_may_write_is_never_reused(tmp_path, bits):
    """A record of the harness's own that the group or anyone may write: its verdict may be another's edit."""
    path = _stored(tmp_path)
    path.chmod(stat.S_IMODE(path.stat().st_mode) | bits)
    reader = VerdictCache(tmp_path)
    assert reader.get(_KEY) is None and reader.misses == 1
    assert reader.stats()["foreign"] == 1


def test_a_record_the_harness_stores_under_a_permissive_umask_is_still_its_own(tmp_path):
    """The honest twin: a umask that lets the group write (002, a user-private-group system) makes no record
    others may write, so the cache still answers; and a hard-linked copy of the cache (`cp -a -l`) is the same
    file, still the harness's."""
    old = os.umask(0o002)
    try:
        path = _stored(tmp_path)
    finally:
        os.umask(old)
    assert not stat.S_IMODE(path.stat().st_mode) & (stat.S_IWGRP | stat.S_IWOTH)
    copy = tmp_path / "copy"
    (copy / "verify").mkdir(parents=True)
    os.link(path, copy / "verify" / path.name)
    reader = VerdictCache(copy)
    assert reader.get(_KEY) is not None and "foreign" not in reader.stats()


def test_verify_says_it_reused_no_record_others_may_write(tmp_path, capsys, lean_checks):
    """The run's own words for `run.cache.foreign`: the user learns why a warm cache re-ran its checks."""
    from errorkb.cli import main
    from tests.verify.verifykb import copy_fixture

    root = copy_fixture(tmp_path / "kb", ["before-wrong-type"])
    argv = ["--root", str(root), "verify", "before-wrong-type", "--target", "bundled", "--device", "cpu",
            "--snippet", "before"]
    main(argv)
    records = list((root / ".errorkb-cache" / "verify").glob("*.json"))
    assert records, "the first run stored its verdict"
    for path in records:
        path.chmod(stat.S_IMODE(path.stat().st_mode) | stat.S_IWOTH)
    capsys.readouterr()
    main(argv)
    err = capsys.readouterr().err
    assert f"{len(records)} record(s) in .errorkb-cache/verify belong to another user or may be written by" in err, err


# -- processes a check leaves, and a check that stops ----------------------------------------------------------------



_MARK = "errorkb-round21-leftover"
STOPS = f"""
import os, signal, subprocess, sys
# a grandchild of its own session that ignores SIGTERM and stops itself: only the namespace's end can take it
subprocess.Popen([sys.executable, "-c", "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
                  "os.kill(os.getpid(), signal.SIGSTOP); time.sleep(600)", "{_MARK}"], start_new_session=True)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
os.kill(os.getpid(), signal.SIGSTOP)  # the check's own process stops: no CPU time passes, only the wall clock
"""


def _leftovers() -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if _MARK.encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(int(pid))
        except OSError:
            pass
    return found


@pytest.mark.verifier
@pytest.mark.timeout(600)
def test_a_check_that_stops_itself_and_leaves_a_stopped_grandchild_ends_at_its_backstop(
        entry, project, lean_pool, lean_python):
    """A check that stops (SIGSTOP) uses no CPU time, so only the wall-clock backstop ends it; its setsid'd
    grandchild, stopped too and deaf to SIGTERM, dies with the check's PID namespace. The run finishes within the
    backstop, the verdict says the time ran out, and the next check of the same zygote passes."""
    import time

    started = time.monotonic()
    run, verdict = run_snippet(lean_pool, lean_python, entry, project, "stops.py", STOPS, wall_s=8)
    assert time.monotonic() - started < 60, "a stopped check held the run past its backstop"
    assert run.timed_out and verdict.outcome == "fail", (verdict.reason, run.output[-1000:])
    assert "wall" in verdict.reason or "time" in verdict.reason, verdict.reason
    deadline = time.monotonic() + 30
    while _leftovers() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _leftovers() == [], "a stopped, setsid'd grandchild outlived its check"
    _, honest = run_snippet(lean_pool, lean_python, entry, project, "honest.py", HONEST)
    assert honest.outcome == "pass", honest.reason


SPINS_IN_C = """
import re, signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)  # deaf to the CPU limit's warning
signal.signal(signal.SIGTERM, signal.SIG_IGN)
re.match("(a*)*b", "a" * 64)  # one C call that never returns to Python: no handler of Python's runs in it
"""


@pytest.mark.verifier
@pytest.mark.timeout(600)
def test_a_check_spinning_in_one_c_call_deaf_to_its_signals_ends_at_its_cpu_limit(
        entry, project, lean_pool, lean_python):
    """A check that ignores SIGXCPU and SIGTERM and spins inside one C call (no bytecode boundary where a
    handler of Python's could run) still ends at its CPU-time limit (the hard limit's SIGKILL), long before its
    wall-clock backstop; the verdict says its CPU time ran out, and the zygote's next check passes."""
    import time

    path = project / "snippets" / "good-head-dim" / "spins.py"
    path.write_text(SPINS_IN_C)
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
    started = time.monotonic()
    run = lean_pool.run(check, 2, lean_python, wall_s=120)
    verdict = judge_with(check, run, TORCH)
    assert time.monotonic() - started < 100, "the spinning check ran into its wall-clock backstop"
    assert not run.timed_out and verdict.outcome == "fail", (verdict.reason, run.output[-1000:])
    assert verdict.reason.startswith("timed out: used its 2 s of CPU time"), verdict.reason
    _, honest = run_snippet(lean_pool, lean_python, entry, project, "honest.py", HONEST)
    assert honest.outcome == "pass", honest.reason


# -- the judge: a stream is the check's own only when it ran the check's bytes ---------------------------------------


def test_a_stream_that_ran_other_bytes_than_the_checks_snippet_is_never_its_verdict(tmp_path):
    """Every stream's start names the SHA-256 of the bytes its process ran, and the record repeated it, but the
    judge never compared it with the check's snippet: a stream of another check (a pool's reply handed to the
    wrong waiter, a stream of an earlier check read by the next), whole and sealed under its own key, judged as
    this check's verdict. The honest twin, the same observation with the check's own digest, still passes."""
    from errorkb.core.snippets import sha256
    from errorkb.plugs import runtime_for
    from errorkb.verify.records import Code
    from errorkb.verify.run import Run
    from tests.verify.test_judge_getattr_protocol import PROTOCOL, _check, judged

    check = _check(tmp_path)
    honest = judged(check, PROTOCOL)
    assert honest.outcome == "pass", honest.reason

    def with_digest(digest: str):
        from errorkb.verify.records import Calls, Observation, Status

        calls = Calls(function=check.entry.source.function, count=40, returned=40 - len(PROTOCOL), raised=PROTOCOL,
                      raised_count=len(PROTOCOL))
        run = Run(Observation(status=Status.RETURNED, calls=calls), 0, False, "", 0, 0.1, 10, ended=True,
                  end_status="returned", sha256=digest)
        return judge_with(check, run, runtime_for("torch"))

    assert with_digest(check.snippet.sha256).outcome == "pass"
    other = with_digest(sha256(b"import torch\n"))
    assert other.outcome == "fail" and other.code == Code.MALFORMED_OBSERVATION, other.reason
    assert "not this check's snippet" in other.reason, other.reason


def test_a_stream_that_watched_another_function_than_the_checks_is_never_its_verdict(tmp_path):
    """Two entries may share a byte-identical snippet (one guard for two errors): their checks' streams name the
    same SHA-256, and differ in the functions their observers watched (the start's slots). A stream whose calls
    are of a function the check's entry does not watch is another check's; the check's own still passes."""
    from errorkb.plugs import runtime_for
    from errorkb.verify.records import Calls, Code, Observation, Status
    from errorkb.verify.run import Run
    from tests.verify.test_judge_getattr_protocol import _check

    check = _check(tmp_path)

    def watching(function: str):
        calls = Calls(function=function, count=3, returned=3, raised=[], raised_count=0)
        run = Run(Observation(status=Status.RETURNED, calls=calls), 0, False, "", 0, 0.1, 10, ended=True,
                  end_status="returned", sha256=check.snippet.sha256)
        return judge_with(check, run, runtime_for("torch"))

    assert watching(check.entry.source.function).outcome == "pass"
    other = watching("Module.__setattr__")
    assert other.outcome == "fail" and other.code == Code.MALFORMED_OBSERVATION, other.reason
    assert "not this check's" in other.reason, other.reason
