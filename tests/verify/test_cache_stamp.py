"""Who judged a record reused from the verdict cache: the record says so itself, from where it was stored.

The cache stored a record before a report stamped its verifier and errorkb release, so a record reused from
the cache read as the reusing run's: an errorkb release that changed no verdict's code (the cache key holds
the verifier's version and code, not the release) relabelled every reused record with its own release. The
stamp has one owner (`report.stamped`): the cache stores records stamped, and a reused record keeps its own.
"""

from __future__ import annotations

import json

import pytest

from errorkb import __version__
from errorkb.results.records import CheckRecord, Code, Outcome
from errorkb.results.report import VERIFIER_VERSION, new_report, now
from errorkb.verify.cache import VerdictCache

KEY = "0f" * 32


def record(**update: object) -> CheckRecord:
    """A record as the engine makes it: its verifier and errorkb release not said."""
    made = CheckRecord(id="demo::before[bundled-cpu]", entry="demo", role="before", snippet="snippets/demo/before.py",
                       target="bundled", device="cpu", outcome=Outcome.PASS, code=Code.RAISED_AS_DOCUMENTED,
                       reason="raised as documented", expected="ValueError", verified_at=now(), key=KEY)
    return made.model_copy(update=update)


def test_a_stored_record_carries_the_verifier_and_the_errorkb_release_that_judged_it(tmp_path):
    cache = VerdictCache(tmp_path)
    cache.put(KEY, record())
    stored = json.loads((tmp_path / "verify" / f"{KEY}.json").read_text(encoding="utf-8"))
    assert (stored["verifier"], stored["errorkb"]) == (VERIFIER_VERSION, __version__)


def test_a_record_an_earlier_errorkb_release_stored_keeps_its_release_through_the_report(tmp_path):
    """The key says the verifier (its version and code) is this one's; the release that ran it, the record."""
    cache = VerdictCache(tmp_path)
    cache.put(KEY, record(verifier=VERIFIER_VERSION, errorkb="0.0.1"))
    hit = cache.get(KEY)
    assert hit is not None and (hit.verifier, hit.errorkb) == (VERIFIER_VERSION, "0.0.1")
    [shown] = new_report({}, [hit.model_copy(update={"cached": True})]).checks
    assert (shown.verifier, shown.errorkb) == (VERIFIER_VERSION, "0.0.1")


def test_a_record_of_a_cache_written_before_records_were_stamped_is_the_key_s_verifier_s_release_unsaid(tmp_path):
    folder = tmp_path / "verify"
    folder.mkdir()
    (folder / f"{KEY}.json").write_text(record().model_dump_json(exclude_none=True), encoding="utf-8")
    hit = VerdictCache(tmp_path).get(KEY)
    assert hit is not None and (hit.verifier, hit.errorkb) == (VERIFIER_VERSION, None)
    [shown] = new_report({}, [hit]).checks
    assert (shown.verifier, shown.errorkb) == (VERIFIER_VERSION, None)  # not this run's release: not known


def test_a_record_naming_another_verifier_than_its_key_s_is_never_reused(tmp_path):
    """The key holds the verifier's version: a record under it that names another was not stored by this
    verifier (copied, edited), so it is a miss, never relabelled nor trusted."""
    folder = tmp_path / "verify"
    folder.mkdir()
    (folder / f"{KEY}.json").write_text(record(verifier="1", errorkb="0.1.0").model_dump_json(exclude_none=True),
                                        encoding="utf-8")
    cache = VerdictCache(tmp_path)
    assert cache.get(KEY) is None and cache.misses == 1


def test_a_fresh_record_is_stamped_by_the_same_owner_in_the_report():
    [shown] = new_report({}, [record()]).checks
    assert (shown.verifier, shown.errorkb) == (VERIFIER_VERSION, __version__)


def _git(folder, *args: str) -> None:
    import subprocess

    subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@example.com", "GIT_COMMITTER_NAME": "a",
                        "GIT_COMMITTER_EMAIL": "a@example.com", "HOME": str(folder), "PATH": "/usr/bin:/bin"})


def test_a_record_the_repository_tracks_is_never_reused(tmp_path):
    """The key is public (every input of it is in the repository): a pull request could commit a record under
    the key of its own check, `git add -f` past the .gitignore, and the first trusted run after the merge
    (its CI cache restored over the checkout) reused a verdict no run observed. The harness alone writes the
    cache and never commits it: a record git tracks is no verdict of a run, so it is a miss (and counted)."""
    _git(tmp_path, "init", "-q")
    folder = tmp_path / ".errorkb-cache" / "verify"
    folder.mkdir(parents=True)
    forged = record(verifier=VERIFIER_VERSION, errorkb=__version__)
    (folder / f"{KEY}.json").write_text(forged.model_dump_json(exclude_none=True), encoding="utf-8")
    other = "1e" * 32
    (folder / f"{other}.json").write_text(record(key=other).model_dump_json(exclude_none=True), encoding="utf-8")
    _git(tmp_path, "add", "-f", f".errorkb-cache/verify/{KEY}.json")
    _git(tmp_path, "commit", "-qm", "a verdict nobody observed")
    cache = VerdictCache(tmp_path / ".errorkb-cache")
    assert cache.get(KEY) is None
    assert cache.get(other) is not None  # a record the harness wrote, untracked, is reused as before
    assert cache.stats()["tracked"] == 1


def test_a_cache_outside_any_repository_is_read_as_before(tmp_path):
    cache = VerdictCache(tmp_path)
    cache.put(KEY, record())
    assert cache.get(KEY) is not None and "tracked" not in cache.stats()


def test_a_fifo_or_a_link_out_under_a_key_is_a_miss_never_a_hang(tmp_path):
    import os
    import threading

    folder = tmp_path / "verify"
    folder.mkdir()
    os.mkfifo(folder / f"{KEY}.json")
    outside = tmp_path / "elsewhere.json"
    outside.write_text(record(key="2a" * 32).model_dump_json(exclude_none=True), encoding="utf-8")
    (folder / f"{'2a' * 32}.json").symlink_to(outside)
    cache = VerdictCache(tmp_path)
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.extend([cache.get(KEY), cache.get("2a" * 32)]), daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the reader so the test process can end
        with open(folder / f"{KEY}.json", "w"):
            pass
    assert got == [None, None] and cache.misses == 2


def test_verify_says_it_reused_no_record_git_tracks(tmp_path, capsys, lean_checks):
    from errorkb.cli import main
    from tests.verify.verifykb import copy_fixture

    root = copy_fixture(tmp_path / "kb", ["before-wrong-type"])
    _git(root, "init", "-q")
    folder = root / ".errorkb-cache" / "verify"
    folder.mkdir(parents=True)
    (folder / f"{KEY}.json").write_text(record().model_dump_json(exclude_none=True), encoding="utf-8")
    _git(root, "add", "-f", f".errorkb-cache/verify/{KEY}.json")
    main(["--root", str(root), "verify", "before-wrong-type", "--target", "bundled", "--device", "cpu",
          "--snippet", "before"])
    err = capsys.readouterr().err
    assert "1 record(s) in .errorkb-cache/verify are tracked by git" in err and "git rm -r --cached" in err, err


def test_a_cache_folder_that_links_out_is_neither_read_nor_written_through(tmp_path):
    """`.errorkb-cache/verify` committed as a link to a folder elsewhere (the cache is gitignored, not out of a
    pull request's reach: `git add -f`): reading through it was refused (`store.read_regular`), but every
    verdict a trusted run stored was written there, outside the repository."""
    cache_dir = tmp_path / "kb" / ".errorkb-cache"
    cache_dir.mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (cache_dir / "verify").symlink_to(elsewhere)
    cache = VerdictCache(cache_dir)
    cache.put(KEY, record())
    assert list(elsewhere.iterdir()) == [] and (cache_dir / "verify").is_symlink()
    assert cache.get(KEY) is None and cache.misses == 1
    assert "leads out" in cache.stats()["unusable"]  # what `errorkb verify` says, with what to do


def test_a_cache_folder_the_repository_commits_as_a_link_out_is_never_written_through(tmp_path):
    """`.errorkb-cache` itself committed as a link to a folder elsewhere: the verdicts of a trusted run were
    stored there. An author may link the whole cache to another disk on purpose (kept, below); a link git tracks
    was made by a commit, and is neither read nor written through."""
    repo = tmp_path / "kb"
    repo.mkdir()
    _git(repo, "init", "-q")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".errorkb-cache").symlink_to(elsewhere)
    _git(repo, "add", "-f", ".errorkb-cache")
    _git(repo, "commit", "-qm", "a cache folder leading out")
    cache = VerdictCache(repo / ".errorkb-cache")
    cache.put(KEY, record())
    assert list(elsewhere.rglob("*.json")) == [] and cache.get(KEY) is None and "unusable" in cache.stats()
    _git(repo, "rm", "-q", "--cached", ".errorkb-cache")  # the author's own link, untracked: the cache works
    mine = VerdictCache(repo / ".errorkb-cache")
    mine.put(KEY, record())
    assert mine.get(KEY) is not None and [path.name for path in elsewhere.rglob("*.json")] == [f"{KEY}.json"]


@pytest.mark.parametrize("blocked", [".errorkb-cache", ".errorkb-cache/verify"])
def test_a_cache_that_cannot_be_written_costs_no_verdict(tmp_path, blocked):
    """A file where the cache's folder goes (a repository committed one, or a full or read-only disk): storing a
    verdict raised, and the run recorded every check it had judged as failed ("the verifier could not judge this
    check: NotADirectoryError"). The cache only saves time: the verdict stands, and the run says why none was
    stored."""
    root = tmp_path / "kb"
    (root / blocked).parent.mkdir(parents=True, exist_ok=True)
    (root / blocked).write_text("not a folder", encoding="utf-8")
    cache = VerdictCache(root / ".errorkb-cache")
    cache.put(KEY, record())  # never raises
    assert cache.get(KEY) is None and (root / blocked).read_text() == "not a folder"
    assert "cannot be written" in cache.stats()["unusable"], cache.stats()
