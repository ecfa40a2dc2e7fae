"""The environments under the cache (the version matrix's `.errorkb-cache/matrix/<dist>-<release>/`, the pins'
`.errorkb-cache/needs/...`) are run as "the release's environment" only where the harness built them.

Before this, a repository cloned from a stranger that committed an environment (`git add -f` past the
.gitignore: `bin/python` and the `.errorkb-ready` mark), or a link named so, made `errorkb verify` and
`errorkb matrix` run an interpreter the stranger chose, outside every sandbox; and where the mark was
missing, building "the environment" ran `python -m venv --clear` through a committed link: it emptied the
folder the link led to (the user's own files). The verdict cache already refused what git tracks and what a
committed link leads to (`cache.VerdictCache`); the environments now obey the same rule, one owner of it
(`core/cachetrust.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.records import Code
from errorkb.verify import matrix
from errorkb.verify.requirements import build_pinned_env, pinned_env, pinned_python
from tests.kb import copy_kb
from tests.verify.test_cache_stamp import _git

RELEASE = "4.40.2"
IDS = ["head-dim-list-length"]


def _stranger_env(folder: Path, release: str = RELEASE) -> Path:
    """An environment as a stranger's repository would ship one: an interpreter of their choosing (here a
    script that leaves a mark where it runs) and the ready mark; its interpreter."""
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text(f"#!/bin/sh\necho ran > {folder.parent / 'STRANGER-RAN'}\n", encoding="utf-8")
    python.chmod(0o755)
    (folder / ".errorkb-ready").write_text(release, encoding="utf-8")
    return python


@pytest.fixture
def repo(tmp_path):
    """A knowledge base cloned from somewhere: a git repository that ignores its cache, as errorkb's does."""
    root = copy_kb(tmp_path / "kb", IDS)
    (root / ".gitignore").write_text("/.errorkb-cache/\n", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "the knowledge base")
    return root


def _commit(root: Path, *paths: str) -> None:
    _git(root, "add", "-f", *paths)
    _git(root, "commit", "-qm", "an environment nobody built here")


def _nothing_runs(monkeypatch) -> list[list[str]]:
    """The commands a build would run, recorded and not run (a venv --clear through a link empties its target)."""
    ran: list[list[str]] = []
    real = subprocess.run

    def record(step, **kwargs):
        if Path(step[0]).name == "git":  # what the rule asks of git runs (`subprocess` is one module for all)
            return real(step, **kwargs)
        ran.append(list(step))
        return subprocess.CompletedProcess(step, 1, "", "not run here")

    monkeypatch.setattr(matrix.subprocess, "run", record)
    return ran


def _refused(root: Path, monkeypatch) -> str:
    """What `ensure_env` and a verifier say of the release's environment; asserts neither runs it."""
    from errorkb.verify.engine import Upstream, Verifier

    project = load_project(root)
    ran = _nothing_runs(monkeypatch)
    env = matrix.ensure_env(project, RELEASE)
    assert env.python is None, "the repository's own interpreter was taken for the release's environment"
    assert ran == [], f"a build ran through what the repository holds: {ran}"
    loaded = load_project_entries(project).entries
    (check, *_) = matrix.release_checks(project, loaded, RELEASE, IDS)
    verifier = Verifier(project, ["upstream"], upstream=Upstream.INSTALLED)
    try:
        assert verifier.interpreter(check) is None
        verdict = verifier.reason_not_run(check)
        assert verdict is not None and verdict.code is Code.TARGET_UNAVAILABLE
    finally:
        verifier.close()
    assert env.error is not None and "Traceback" not in env.error
    return env.error


def test_a_committed_environment_is_never_run(repo, monkeypatch):
    folder = repo / ".errorkb-cache" / "matrix" / f"transformers-{RELEASE}"
    _stranger_env(folder)
    _commit(repo, ".errorkb-cache")
    said = _refused(repo, monkeypatch)
    assert "git tracks" in said and "git rm -r --cached" in said, said
    assert (folder / "bin" / "python").is_file(), "the repository's files were overwritten"


def test_a_committed_ready_mark_alone_refuses_the_environment(repo, monkeypatch):
    folder = repo / ".errorkb-cache" / "matrix" / f"transformers-{RELEASE}"
    _stranger_env(folder)
    _commit(repo, f".errorkb-cache/matrix/transformers-{RELEASE}/.errorkb-ready")
    assert "git tracks" in _refused(repo, monkeypatch)


def test_a_committed_cache_link_out_of_the_repository_is_refused(repo, tmp_path, monkeypatch):
    outside = tmp_path / "outside"
    _stranger_env(outside / "matrix" / f"transformers-{RELEASE}")
    (repo / ".errorkb-cache").symlink_to(outside)
    _commit(repo, ".errorkb-cache")
    said = _refused(repo, monkeypatch)
    assert ".errorkb-cache" in said and "link" in said, said


def test_a_committed_cache_link_inside_the_repository_is_refused(repo, monkeypatch):
    _stranger_env(repo / "tools" / "matrix" / f"transformers-{RELEASE}")
    (repo / ".errorkb-cache").symlink_to("tools")
    _commit(repo, ".errorkb-cache", "tools")
    _refused(repo, monkeypatch)


@pytest.mark.parametrize("committed", [True, False])
def test_an_environment_folder_that_is_a_link_is_refused_and_never_emptied(repo, tmp_path, monkeypatch, committed):
    """The harness makes each environment's folder itself: a link there is not its own. Where the mark is
    missing (a link to the user's home folder, say), building ran `venv --clear` on it: nothing runs now."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "thesis.tex").write_text("years of work", encoding="utf-8")
    other = tmp_path / "built"
    _stranger_env(other)
    for release, target in ((RELEASE, other), ("4.41.0", home)):
        link = repo / ".errorkb-cache" / "matrix" / f"transformers-{release}"
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)
    if committed:
        _commit(repo, ".errorkb-cache/matrix")
    said = _refused(repo, monkeypatch)
    assert "link" in said, said
    ran = _nothing_runs(monkeypatch)
    env = matrix.ensure_env(load_project(repo), "4.41.0", rebuild=True)
    assert env.python is None and ran == [] and (home / "thesis.tex").read_text() == "years of work"


def test_a_committed_environment_of_pins_is_never_run_nor_rebuilt(repo, monkeypatch):
    cache = repo / ".errorkb-cache"
    needed = ("demo-pinned<2",)
    folder = pinned_env(cache, needed)
    _stranger_env(folder)
    _commit(repo, ".errorkb-cache")
    assert pinned_python(cache, needed) is None
    ran = _nothing_runs(monkeypatch)
    why = build_pinned_env(cache, needed)
    assert why is not None and "git tracks" in why and ran == []
    assert (folder / "bin" / "python").is_file() and not (folder / ".errorkb-failed").exists()


def test_the_cli_says_what_to_do_and_shows_no_traceback(repo, capsys):
    folder = repo / ".errorkb-cache" / "matrix" / f"transformers-{RELEASE}"
    _stranger_env(folder)
    _commit(repo, ".errorkb-cache")
    from errorkb.cli import main

    assert main(["--root", str(repo), "matrix", "--environments-only", "--release", RELEASE]) == 1
    said = capsys.readouterr()
    assert "Traceback" not in said.out + said.err and "git rm -r --cached" in said.err, said
    assert not (folder.parent / "STRANGER-RAN").exists()


def test_a_cache_that_is_a_committed_file_is_a_clear_error(repo, capsys):
    (repo / ".errorkb-cache").write_text("not a folder", encoding="utf-8")
    _commit(repo, ".errorkb-cache")
    from errorkb.cli import main

    assert main(["--root", str(repo), "matrix", "--environments-only", "--release", RELEASE]) == 1
    said = capsys.readouterr()
    assert "Traceback" not in said.out + said.err and ".errorkb-cache" in said.err, said


def test_an_environment_the_harness_built_is_used(repo, tmp_path, monkeypatch):
    """The honest case: an environment built here (untracked, gitignored), and the author's own cache on
    another disk (an untracked link), are run as before."""
    python = Path(sys.executable)
    for cache_link in (False, True):
        cache = repo / ".errorkb-cache"
        if cache_link:
            elsewhere = tmp_path / "disk"
            cache.rename(elsewhere)
            cache.symlink_to(elsewhere)
        folder = cache / "matrix" / f"transformers-{RELEASE}"
        if not cache_link:
            (folder / "bin").mkdir(parents=True)
            (folder / "bin" / "python").symlink_to(python)
            (folder / ".errorkb-ready").write_text(RELEASE, encoding="utf-8")
        ran = _nothing_runs(monkeypatch)
        env = matrix.ensure_env(load_project(repo), RELEASE)
        assert env.python == folder / "bin" / "python" and env.error is None and ran == []
        needed = ("demo-pinned<2",)
        pins = pinned_env(cache, needed)
        (pins / "bin").mkdir(parents=True, exist_ok=True)
        (pins / ".errorkb-ready").write_text("demo-pinned<2\n", encoding="utf-8")
        assert pinned_python(cache, needed) == pins / "bin" / "python"


def _bare_looking(folder: Path) -> None:
    """Files that make `folder` look like a bare git repository: git, asked from inside it, answers for it."""
    (folder / "objects").mkdir(parents=True, exist_ok=True)
    (folder / "refs").mkdir(exist_ok=True)
    (folder / "objects" / ".keep").write_text("", encoding="utf-8")
    (folder / "refs" / ".keep").write_text("", encoding="utf-8")
    (folder / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (folder / "config").write_text("[core]\n\tbare = true\n", encoding="utf-8")


def test_a_committed_environment_that_looks_like_a_bare_repository_is_still_the_repository_s(repo, monkeypatch):
    """`git -C FOLDER ls-files` took a committed folder holding HEAD, objects/ and refs/ for a bare repository of
    its own, which tracks nothing: the environment (or verdict record) git tracks read as untracked."""
    folder = repo / ".errorkb-cache" / "matrix" / f"transformers-{RELEASE}"
    _stranger_env(folder)
    _bare_looking(folder)
    _commit(repo, ".errorkb-cache")
    assert "git tracks" in _refused(repo, monkeypatch)


def test_a_committed_verdict_record_in_a_bare_looking_folder_is_never_reused(repo):
    from errorkb.verify.cache import VerdictCache
    from tests.verify.test_cache_stamp import KEY, record

    folder = repo / ".errorkb-cache" / "verify"
    folder.mkdir(parents=True)
    (folder / f"{KEY}.json").write_text(record().model_dump_json(exclude_none=True), encoding="utf-8")
    _bare_looking(folder)
    _commit(repo, ".errorkb-cache")
    cache = VerdictCache(repo / ".errorkb-cache")
    assert cache.get(KEY) is None and cache.stats().get("tracked", 0) >= 1


def test_asking_git_runs_no_command_of_the_repository_s_git_config(repo, tmp_path):
    """A repository that comes with its `.git` (an archive, a shared folder) may name commands in `.git/config`
    that `git ls-files` runs: `core.fsmonitor`. errorkb asks git with every such command off."""
    from errorkb.verify.cache import tracked_records

    folder = repo / ".errorkb-cache" / "verify"
    folder.mkdir(parents=True)
    (folder / "a.json").write_text("{}", encoding="utf-8")
    _commit(repo, ".errorkb-cache")
    _git(repo, "config", "core.fsmonitor", f"touch {tmp_path / 'RAN'}; true")  # as the archive came
    assert tracked_records(folder) == frozenset({"a.json"})
    assert not (tmp_path / "RAN").exists(), "git ran core.fsmonitor of the repository's .git/config"


def test_the_pages_quote_no_source_from_a_committed_environment(repo):
    from errorkb.source.upstream import package_folder

    def release_files(release: str) -> Path:
        package = repo / ".errorkb-cache" / "matrix" / f"transformers-{release}" / "lib" / "python3.11" / \
            "site-packages" / "transformers"
        package.mkdir(parents=True)
        (package / "cache_utils.py").write_text("raise ValueError('a stranger wrote this line')\n", encoding="utf-8")
        return package

    built_here = release_files("4.41.2")  # untracked: as `errorkb matrix` builds one
    assert package_folder(load_project(repo), "4.41.2") == built_here
    release_files(RELEASE)
    _commit(repo, f".errorkb-cache/matrix/transformers-{RELEASE}")
    assert package_folder(load_project(repo), RELEASE) is None


def test_a_long_running_process_sees_a_later_commit_of_the_environment(repo):
    """`refused` is asked per check and per page, so it remembers its answer; a long `mkdocs serve` (or a watch)
    then outlived the commit that made an environment the repository's: the memo was keyed by the folder and its
    ready mark only, and went on trusting (and quoting source from) what git now tracks. And the other way: once
    the author takes the files out of the repository, the environment is the harness's again."""
    from errorkb.core.cachetrust import refused

    cache = repo / ".errorkb-cache"
    folder = cache / "matrix" / f"transformers-{RELEASE}"
    _stranger_env(folder)
    assert refused(cache, folder) is None, "an untracked environment the harness built was refused"
    _commit(repo, f".errorkb-cache/matrix/transformers-{RELEASE}/bin/python")  # the ready mark untouched
    said = refused(cache, folder)
    assert said is not None and "git tracks" in said, "a later commit of the environment went unseen"
    _git(repo, "rm", "-q", "--cached", "-r", ".errorkb-cache")
    _git(repo, "commit", "-qm", "out of the repository")
    assert refused(cache, folder) is None, "an environment taken out of the repository stayed refused"


def test_a_long_running_process_sees_a_later_link_in_the_environment_s_place(repo, tmp_path):
    """The folder replaced by a link after the first answer (the ready mark the link leads to is another file, or
    the same one: a link to the folder moved aside) is refused, not trusted from the memo."""
    from errorkb.core.cachetrust import refused

    cache = repo / ".errorkb-cache"
    folder = cache / "matrix" / f"transformers-{RELEASE}"
    _stranger_env(folder)
    assert refused(cache, folder) is None
    aside = cache / "matrix" / "aside"
    folder.rename(aside)
    folder.symlink_to(aside)
    said = refused(cache, folder)
    assert said is not None and "link" in said, said
