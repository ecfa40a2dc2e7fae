"""The verdict cache: reused only while every part of its key holds, and never for a flaky outcome."""

from __future__ import annotations

import pytest
from verifykb import copy_kb, load_kb

from errorkb.verify import cache as cache_module
from errorkb.verify.cache import cache_key, cacheable
from errorkb.verify.engine import verify
from errorkb.verify.plan import Check


@pytest.fixture
def good_check(broken_kb, tmp_path) -> Check:
    project, entries = broken_kb
    entry = next(one.entry for one in entries if one.entry.id == "good-head-dim")
    snippet = tmp_path / "before.py"
    snippet.write_text(project.snippet_path(entry.id, "before.py").read_text(), encoding="utf-8")
    return Check(entry, "before", snippet, "bundled", "cpu")


def test_every_part_of_the_key_changes_the_key(good_check, monkeypatch, tmp_path):
    base = cache_key(good_check, "bundled-abc")
    entry = good_check.entry
    guard = good_check.entry.guards[0]
    flipped = {
        "target fingerprint": lambda: cache_key(good_check, "bundled-abd"),
        "device": lambda: cache_key(Check(entry, "before", good_check.snippet, "bundled", "cuda"), "bundled-abc"),
        "role": lambda: cache_key(Check(entry, "after", good_check.snippet, "bundled", "cpu"), "bundled-abc"),
        "message": lambda: cache_key(Check(entry.model_copy(update={"message": entry.message + "!"}), "before",
                                           good_check.snippet, "bundled", "cpu"), "bundled-abc"),
        "exception": lambda: cache_key(Check(entry.model_copy(update={"exception": "TypeError"}), "before",
                                             good_check.snippet, "bundled", "cpu"), "bundled-abc"),
        "source": lambda: cache_key(Check(entry.model_copy(update={"source": entry.source.model_copy(update={"line": 1})}),
                                          "before", good_check.snippet, "bundled", "cpu"), "bundled-abc"),
        "expect": lambda: cache_key(Check(entry.model_copy(update={"expect": entry.expect.model_copy(
            update={"placeholders": {"len(num_heads)": "5"}})}), "before", good_check.snippet, "bundled", "cpu"),
            "bundled-abc"),
    }
    for name, key in flipped.items():
        assert key() != base, name
    # the guard's own expectation: same snippet, another declared outcome
    guard_check = Check(entry, "guard:guard", good_check.snippet, "bundled", "cpu")
    other = entry.model_copy(update={"guards": [guard.model_copy(update={"expect": guard.expect.model_copy(
        update={"message": "something else"})})]})
    assert cache_key(guard_check, "x") != cache_key(Check(other, "guard:guard", good_check.snippet, "bundled", "cpu"), "x")
    # the environment: torch, Python, the verifier's own code
    for name, value in (("torch_version", lambda: "9.9.9"), ("verifier_fingerprint", lambda: "2+ffff")):
        with monkeypatch.context() as patch:
            patch.setattr(cache_module, name, value)
            assert cache_key(good_check, "bundled-abc") != base, name
    with monkeypatch.context() as patch:
        patch.setattr(cache_module.platform, "python_version", lambda: "3.99.0")
        assert cache_key(good_check, "bundled-abc") != base
    # the snippet text itself (the folder hash is memoised per folder, so use a fresh folder)
    moved = tmp_path / "again"
    moved.mkdir()
    (moved / "before.py").write_text(good_check.snippet.read_text() + "# edited\n", encoding="utf-8")
    assert cache_key(Check(entry, "before", moved / "before.py", "bundled", "cpu"), "bundled-abc") != base
    assert cache_key(good_check, "bundled-abc") == base, "the key is deterministic"


def test_only_verdicts_that_would_repeat_are_cached():
    assert cacheable({"outcome": "pass", "reason": "ok"}, timed_out=False)
    assert cacheable({"outcome": "fail", "reason": "message differs"}, timed_out=False)
    assert not cacheable({"outcome": "fail", "reason": "timed out after 6 s"}, timed_out=True)
    assert not cacheable({"outcome": "not-run", "reason": "no CUDA device"}, timed_out=False)
    assert not cacheable({"outcome": "fail", "reason": "killed by SIGKILL"}, timed_out=False)
    assert not cacheable({"outcome": "fail", "reason": "the verifier's worker died, so ..."}, timed_out=False)


def test_a_warm_cache_reruns_only_what_changed(tmp_path):
    root = copy_kb(tmp_path / "kb", ["good-head-dim", "before-wrong-type"])
    cache_dir = tmp_path / "cache"

    def run() -> dict[str, dict]:
        project, entries = load_kb(root)
        report = verify(project, entries, targets=["bundled"], devices=["cpu", "cuda"], cache_dir=cache_dir, jobs=2)
        return {record["id"]: record for record in report.checks}

    first = run()
    ran = {i for i, r in first.items() if r["outcome"] != "not-run"}
    assert len(ran) == 6 and not any(first[i]["cached"] for i in ran)
    second = run()
    assert all(second[i]["cached"] for i in ran)
    assert {i: (second[i]["outcome"], second[i]["reason"], second[i]["verified_at"]) for i in ran} == \
           {i: (first[i]["outcome"], first[i]["reason"], first[i]["verified_at"]) for i in ran}
    assert not any(r.get("cached") for r in second.values() if r["outcome"] == "not-run")

    after = root / "snippets/good-head-dim/after.py"
    after.write_text(after.read_text() + "raise RuntimeError('edited')\n", encoding="utf-8")
    cache_module._folder_hash.cache_clear()
    third = run()
    rerun = {i for i in ran if not third[i]["cached"]}
    assert rerun == {i for i in ran if i.startswith("good-head-dim::")}  # the edited folder's checks only
    assert third["good-head-dim::after[bundled-cpu]"]["outcome"] == "fail"

    entry_file = root / "docs/errors/transformers/before-wrong-type.yml"
    entry_file.write_text(entry_file.read_text().replace("exception: ValueError", "exception: TypeError"), encoding="utf-8")
    fourth = run()
    assert {i for i in ran if not fourth[i]["cached"]} == {i for i in ran if i.startswith("before-wrong-type::")}
    assert fourth["before-wrong-type::before[bundled-cpu]"]["outcome"] == "fail"  # TypeError raised, not from the function's check
