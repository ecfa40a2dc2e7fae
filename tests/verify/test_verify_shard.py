"""`--shard k/n`: a deterministic split whose union is the full run, with no check twice."""

from __future__ import annotations

import json

import pytest

from errorkb.cli import main
from errorkb.verify.engine import plan_checks
from errorkb.verify.plan import parse_shard, shard_of
from tests.verify.verifykb import TARGETS, copy_fixture


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_shards_partition_the_plan(broken_kb, n):
    project, entries = broken_kb
    full = [c.id for c in plan_checks(project, entries, targets=list(TARGETS))]
    shards = [[c.id for c in plan_checks(project, entries, targets=list(TARGETS), shard=(k, n))] for k in range(1, n + 1)]
    union = [check for shard in shards for check in shard]
    assert sorted(union) == sorted(full) and len(union) == len(set(union))
    if n > 1:
        assert all(shards), "a few hundred checks leave no shard empty"


def test_a_check_keeps_its_shard_whatever_else_is_planned(broken_kb):
    project, entries = broken_kb
    few = plan_checks(project, entries[:3], targets=["bundled"], shard=(2, 3))
    many = plan_checks(project, entries, targets=list(TARGETS), shard=(2, 3))
    assert {c.id for c in few} <= {c.id for c in many}
    assert all(shard_of(c.id, 3) == 2 for c in many)


@pytest.mark.parametrize("text", ["0/2", "3/2", "1", "a/b", "1/0"])
def test_bad_shards_are_usage_errors(text):
    with pytest.raises(ValueError):
        parse_shard(text)


def test_sharded_runs_merge_into_the_full_run(tmp_path, capsys, lean_checks):
    root = copy_fixture(tmp_path / "kb", ["good-head-dim", "before-sys-exit", "guard-wrong-message"])
    common = ["--root", str(root), "verify", "--target", "bundled", "--no-cache"]
    assert main([*common, "--report", str(tmp_path / "full.json")]) == 1
    for k in (1, 2):
        main([*common, "--shard", f"{k}/2", "--report", str(tmp_path / f"shard{k}.json")])
    assert main(["--root", str(root), "report", "merge", str(tmp_path / "merged.json"),
                 str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json")]) == 0

    def checks(name: str) -> list[dict]:
        return json.loads((tmp_path / name).read_text())["checks"]

    one, two = checks("shard1.json"), checks("shard2.json")
    assert one and two and not {c["id"] for c in one} & {c["id"] for c in two}
    merged, full = checks("merged.json"), checks("full.json")
    # The runs judged the snippets (a run whose every check failed at set-up would merge just as well).
    assert all(c["outcome"] == "pass" for c in full if c["entry"] == "good-head-dim" and c["device"] == "cpu")
    assert {c["entry"] for c in full if c["outcome"] == "fail"} == {"before-sys-exit", "guard-wrong-message"}
    assert any(c["entry"] == "good-head-dim" and c["device"] == "cpu" for c in full)
    assert [c["id"] for c in merged] == sorted(c["id"] for c in full)
    assert {c["id"]: (c["outcome"], c["reason"]) for c in merged} == {c["id"]: (c["outcome"], c["reason"]) for c in full}
    assert "merged 2 reports: 18 checks" in capsys.readouterr().out
    assert main(["--root", str(root), "verify", "--shard", "3/2"]) == 2


# -- the version matrix across jobs: `errorkb matrix --shard K/N`, then `errorkb report merge` ----


CANDIDATES = ["5.10.0", "5.11.0", "5.12.0", "5.13.0", "5.14.0", "5.15.1", "5.16.0", "5.17.0"]


def test_release_shards_partition_the_releases_and_keep_their_release_whatever_the_list():
    from errorkb.verify.matrix import shard_releases

    for n in (1, 2, 3, 5):
        shards = [shard_releases(CANDIDATES, k, n) for k in range(1, n + 1)]
        assert sorted(r for shard in shards for r in shard) == sorted(CANDIDATES)
        for k in range(1, n + 1):  # a job that was served a shorter list gives a release the same shard
            assert set(shard_releases(CANDIDATES[2:], k, n)) <= set(shards[k - 1])


def test_two_matrix_shards_merged_equal_one_run(tmp_path, monkeypatch, capsys):
    """Each shard is a CI job with its own checkout; `report merge` joins their matrix files into
    what one run over every release writes (the same statuses and results, bar the times)."""
    import sys
    from pathlib import Path

    from errorkb.results.matrix import load_matrix
    from errorkb.results.records import CheckRecord, Code, ExceptionInfo, Outcome, Site
    from errorkb.results.report import now
    from errorkb.verify import matrix
    from errorkb.verify.matrix import shard_releases
    from tests.kb import copy_kb

    first, second = shard_releases(CANDIDATES, 1, 2)[0], shard_releases(CANDIDATES, 2, 2)[0]
    releases = sorted([first, second], key=CANDIDATES.index)
    monkeypatch.setattr(matrix, "ensure_env", lambda project, release, rebuild=False:
                        matrix.Env(release, Path(sys.executable)))

    def run_release(verifier, checks, jobs=2):
        """What each check found, the same in every job (the merging is tested, not the checks;
        test_versions runs real ones): the before raises from a line of its release's own."""
        records = []
        for check in checks:
            raised = check.role == "before" and check.release == first
            line = CANDIDATES.index(check.release) + 100
            records.append(CheckRecord(
                id=check.id, entry=check.entry.id, role=check.role, snippet="s", target="upstream", device="cpu",
                release=check.release, outcome=Outcome.PASS if raised or check.role == "after" else Outcome.FAIL,
                code=Code.RAISED_AS_DOCUMENTED if raised else Code.RAN_CLEAN if check.role == "after" else
                Code.EXITED_NORMALLY, reason=f"{check.id} at {check.release}", expected="x", verified_at=now(),
                recorded_at=now(), isolation="fork+bwrap", environment={"runtime_version": "2.13.0+cpu"},
                exception=ExceptionInfo(type="ValueError", raise_site=Site(file="f", function="g", line=line))
                if raised else None))
        return records

    monkeypatch.setattr(matrix, "run_release", run_release)
    ids = ["head-dim-list-length", "num-heads-list-length"]
    command = ["matrix", *ids, *(arg for release in releases for arg in ("--release", release)), "--no-cache"]
    outputs = {}
    for name, shard in (("full", []), ("one", ["--shard", "1/2"]), ("two", ["--shard", "2/2"])):
        root = copy_kb(tmp_path / name, ids)
        assert main(["--root", str(root), *command, *shard]) == 0
        outputs[name] = root / "reports" / "matrix" / "transformers.json"
    err = capsys.readouterr().err
    assert f"shard 1/2: 1 release(s): {first}" in err and f"shard 2/2: 1 release(s): {second}" in err
    merged = tmp_path / "merged" / "transformers.json"
    assert main(["--root", str(tmp_path / "full"), "report", "merge", str(merged), str(outputs["one"]),
                 str(outputs["two"])]) == 0

    def measured(path):
        data = load_matrix(path)
        statuses = [status.model_dump(exclude={"measured"}) for status in data.releases]
        results = [result.model_dump(exclude={"measured", "recorded"}) for result in data.results]
        return statuses, results

    full = measured(outputs["full"])
    assert [status["release"] for status in full[0]] == releases and len(full[1]) == 4
    assert measured(merged) == full
    assert {(result["release"], result["before"]["outcome"]) for result in full[1]} == {(first, "pass"),
                                                                                       (second, "fail")}


def test_environments_only_builds_the_shard_s_releases(tmp_path, monkeypatch, capsys):
    import sys
    from pathlib import Path

    from errorkb.verify import matrix
    from errorkb.verify.matrix import shard_releases
    from tests.kb import copy_kb

    root = copy_kb(tmp_path / "kb", ["head-dim-list-length"])
    built: list[str] = []
    monkeypatch.setattr(matrix, "ensure_env", lambda project, release, rebuild=False:
                        built.append(release) or matrix.Env(release, Path(sys.executable)))
    args = [arg for release in CANDIDATES for arg in ("--release", release)]
    assert main(["--root", str(root), "matrix", "--environments-only", "--shard", "2/3", *args]) == 0
    assert sorted(built) == sorted(shard_releases(CANDIDATES, 2, 3))
    assert main(["--root", str(root), "matrix", "--shard", "4/3", *args]) == 2
