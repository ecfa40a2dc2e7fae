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


def test_sharded_runs_merge_into_the_full_run(tmp_path, capsys):
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
    assert [c["id"] for c in merged] == sorted(c["id"] for c in full)
    assert {c["id"]: (c["outcome"], c["reason"]) for c in merged} == {c["id"]: (c["outcome"], c["reason"]) for c in full}
    assert "merged 2 reports: 18 checks" in capsys.readouterr().out
    assert main(["--root", str(root), "verify", "--shard", "3/2"]) == 2
