"""The verdict cache: reused only while every part of its key holds, and never for a flaky outcome."""

from __future__ import annotations

from pathlib import Path

import pytest

from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify import cache as cache_module
from errorkb.verify.cache import cache_key
from errorkb.verify.engine import verify
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check
from errorkb.verify.records import Code, Observation, Outcome, Status
from errorkb.verify.run import Run
from tests.verify.verifykb import copy_fixture, load_kb

TORCH = runtime_for("torch")
MODULE = "transformers.cache_utils"


def check_of(entry, role, path, device="cpu") -> Check:
    return Check(entry, read_snippet(path, Role(role), path.name), "bundled", device, MODULE)


@pytest.fixture
def good_check(broken_kb, tmp_path) -> Check:
    project, entries = broken_kb
    entry = next(one.entry for one in entries if one.entry.id == "good-head-dim")
    snippet = tmp_path / "before.py"
    snippet.write_text(project.snippet_path(entry.id, "before.py").read_text(), encoding="utf-8")
    return check_of(entry, "before", snippet)


def test_every_part_of_the_key_changes_the_key(good_check, monkeypatch, tmp_path):
    def key(check: Check, fingerprint: str = "bundled-abc") -> str:
        return cache_key(check, fingerprint, TORCH)

    base = key(good_check)
    entry = good_check.entry
    path = good_check.snippet.path
    guard = good_check.entry.guards[0]
    flipped = {
        "target fingerprint": lambda: key(good_check, "bundled-abd"),
        "device": lambda: key(check_of(entry, "before", path, "cuda")),
        "role": lambda: key(check_of(entry, "after", path)),
        "message": lambda: key(check_of(entry.model_copy(update={"message": entry.message + "!"}), "before", path)),
        "exception": lambda: key(check_of(entry.model_copy(update={"exception": "TypeError"}), "before", path)),
        "source": lambda: key(check_of(entry.model_copy(update={"source": entry.source.model_copy(update={"line": 1})}),
                                       "before", path)),
        "expect": lambda: key(check_of(entry.model_copy(update={"expect": entry.expect.model_copy(
            update={"placeholders": {"len(num_heads)": "5"}})}), "before", path)),
        "module": lambda: key(Check(entry, good_check.snippet, "bundled", "cpu", "transformers.other")),
    }
    for name, flip in flipped.items():
        assert flip() != base, name
    # the guard's own expectation: same snippet, another declared outcome
    guard_check = check_of(entry, "guard:guard", path)
    other = entry.model_copy(update={"guards": [guard.model_copy(update={"expect": guard.expect.model_copy(
        update={"message": "something else"})})]})
    assert key(guard_check, "x") != key(check_of(other, "guard:guard", path), "x")
    # the environment: the runtime's version, Python, the verifier's own code
    with monkeypatch.context() as patch:
        patch.setattr(type(TORCH), "version", lambda self: "9.9.9")
        assert key(good_check) != base, "runtime version"
    with monkeypatch.context() as patch:
        patch.setattr(cache_module, "verifier_fingerprint", lambda: "2+ffff")
        assert key(good_check) != base, "verifier"
    with monkeypatch.context() as patch:
        patch.setattr(cache_module.platform, "python_version", lambda: "3.99.0")
        assert key(good_check) != base
    # the snippet's bytes themselves (the folder hash is memoised per folder, so use a fresh folder)
    moved = tmp_path / "again"
    moved.mkdir()
    (moved / "before.py").write_bytes(path.read_bytes() + b"# edited\n")
    assert key(check_of(entry, "before", moved / "before.py")) != base
    assert key(good_check) == base, "the key is deterministic"


def run_of(observation=None, *, returncode=0, timed_out=False) -> Run:
    return Run(observation, returncode, timed_out, "", 0, 0.1, 6.0)


def test_only_verdicts_that_would_repeat_are_cached(good_check):
    returned = Observation(status=Status.RETURNED)
    assert judge(good_check, run_of(returned), TORCH).cacheable  # a plain failure repeats
    timed_out = judge(good_check, run_of(returned, timed_out=True), TORCH)
    assert (timed_out.code, timed_out.cacheable) == (Code.TIMEOUT, False)
    killed = judge(good_check, run_of(returncode=-9), TORCH)
    assert (killed.code, killed.cacheable) == (Code.KILLED, False)  # maybe the machine's OOM killer
    assert judge(good_check, run_of(returncode=-15), TORCH).cacheable
    died = judge(good_check, run_of(Observation(status=Status.WORKER_DIED, error="gone")), TORCH)
    assert (died.code, died.cacheable) == (Code.WORKER_DIED, False)
    no_device = judge(good_check, run_of(Observation(status=Status.NO_DEVICE)), TORCH)
    assert (no_device.outcome, no_device.cacheable) == (Outcome.NOT_RUN, False)


def test_a_warm_cache_reruns_only_what_changed(tmp_path):
    root = copy_fixture(tmp_path / "kb", ["good-head-dim", "before-wrong-type"])
    cache_dir = tmp_path / "cache"

    def run() -> dict:
        project, entries = load_kb(root)
        report = verify(project, entries, targets=["bundled"], devices=["cpu", "cuda"], cache_dir=cache_dir, jobs=2)
        return {record.id: record for record in report.checks}

    first = run()
    ran = {i for i, r in first.items() if r.outcome.ran}
    assert len(ran) == 6 and not any(first[i].cached for i in ran)
    second = run()
    assert all(second[i].cached for i in ran)
    assert {i: (second[i].outcome, second[i].reason, second[i].verified_at) for i in ran} == \
           {i: (first[i].outcome, first[i].reason, first[i].verified_at) for i in ran}
    assert not any(r.cached for r in second.values() if not r.outcome.ran)

    after = root / "snippets/good-head-dim/after.py"
    after.write_text(after.read_text() + "raise RuntimeError('edited')\n", encoding="utf-8")
    cache_module._folder_hash.cache_clear()
    third = run()
    rerun = {i for i in ran if not third[i].cached}
    assert rerun == {i for i in ran if i.startswith("good-head-dim::")}  # the edited folder's checks only
    assert third["good-head-dim::after[bundled-cpu]"].outcome is Outcome.FAIL

    entry_file = root / "docs/errors/transformers/before-wrong-type.yml"
    entry_file.write_text(entry_file.read_text().replace("exception: ValueError", "exception: TypeError"), encoding="utf-8")
    fourth = run()
    assert {i for i in ran if not fourth[i].cached} == {i for i in ran if i.startswith("before-wrong-type::")}
    assert fourth["before-wrong-type::before[bundled-cpu]"].outcome is Outcome.FAIL  # TypeError raised, not from the function's check


def test_the_verifier_fingerprint_covers_every_file_that_can_change_a_verdict():
    """The files left out of the verifier's fingerprint exist, and are the only ones left out: a
    judge, observer or child change throws the cached verdicts away; the matrix's orchestration does not."""
    verify = Path(cache_module.__file__).parent
    sources = set(cache_module.verdict_sources())
    for name in cache_module.NOT_IN_VERDICTS:
        assert (verify / name).is_file(), f"NOT_IN_VERDICTS names {name}, which errorkb/verify no longer has"
        assert verify / name not in sources
    left_out = {path.name for path in verify.glob("*.py")} - {path.name for path in sources if path.parent == verify}
    assert left_out == set(cache_module.NOT_IN_VERDICTS)
    for name in ("judge.py", "engine.py", "sandbox.py", "targets.py", "inside/observer.py", "inside/child.py",
                 "inside/zygote.py", "inside/seal.py", "inside/seccomp.py"):
        assert verify / name in sources
