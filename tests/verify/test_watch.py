"""`verify --watch`'s bookkeeping (`errorkb/verify/watch.py`), with no snippet run: when the kept
zygotes are reused, when they are ended, when the watching process starts itself again."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from errorkb.core.project import load_project
from errorkb.verify import sandbox, watch
from errorkb.verify.engine import Verifier
from tests.kb import FIXTURES, copy_kb


class FakePool:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A copy of the broken fixture's project, where the sandbox is a candidate (bwrap found, and as
    root a pids cgroup), as on a machine that runs checks in it."""
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(sandbox, "task_groups", lambda: type("Groups", (), {"problem": lambda self: None})())
    return load_project(copy_kb(tmp_path / "kb", ["good-head-dim"], source=FIXTURES / "broken_kb"))


def kept_with_pool(project) -> tuple[watch.Kept, FakePool]:
    """A `Kept` holding a (fake) pool in the sandbox a run would make now."""
    kept, pool = watch.Kept(), FakePool()
    verifier = Verifier(project, ["bundled"], sandbox="require")
    args, kwargs = verifier._sandbox_args
    kept.hold((sandbox.candidate(*args, **kwargs), pool), verifier)  # type: ignore[arg-type]
    return kept, pool


def test_the_pool_is_kept_while_nothing_it_was_made_for_changed(project):
    kept, pool = kept_with_pool(project)
    assert kept.take(Verifier(project, ["bundled"], sandbox="require")) == kept.chosen
    assert kept.chosen is not None and kept.chosen[1] is pool
    assert not pool.closed and kept.restarts == 0


def test_a_folder_to_hide_that_appears_ends_the_pool(project):
    """The hostile case: reports/ (or the verdict cache, or .git) made after the sandbox was. The
    sandbox hides only folders that exist when it is made, so a kept zygote's later checks would
    read them; a cold run would hide them. The pool is ended instead, and made again."""
    shutil.rmtree(project.reports, ignore_errors=True)  # a fresh checkout: no reports yet
    kept, pool = kept_with_pool(project)
    assert str(project.reports) not in kept.chosen[0].hidden  # type: ignore[index]
    project.reports.mkdir()
    assert kept.take(Verifier(project, ["bundled"], sandbox="require")) is None
    assert pool.closed and kept.restarts == 1 and kept.chosen is None


def test_an_edit_of_the_bundled_package_ends_the_pool(project, monkeypatch):
    """The zygotes imported the bundled package's sources: changed sources, new zygotes."""
    kept, pool = kept_with_pool(project)
    monkeypatch.setattr(watch, "fingerprint", lambda target, library, keyed=None: f"{target}-edited")
    assert kept.take(Verifier(project, ["bundled"], sandbox="require")) is None
    assert pool.closed


def test_a_round_runs_at_start_and_after_each_change_only(project):
    """The loop: round 1 at once; round 2 only once a watched file changed (here by round 1 itself)."""
    snippet = project.snippets / "good-head-dim" / "after.py"
    said: list[str] = []
    calls: list[watch.Kept] = []

    def one_round(kept: watch.Kept) -> int:
        calls.append(kept)
        if len(calls) == 1:
            snippet.write_text(snippet.read_text() + "\n# saved again\n")
        return 0

    assert watch.watch(project, one_round, said.append, rounds=2, poll=0.01) == 0
    assert len(calls) == 2 and calls[0] is calls[1]  # one Kept across rounds
    assert [line.split(" took ")[0] for line in said] == [
        "errorkb verify --watch: round 1",
        "errorkb verify --watch: round 2",
    ]


def test_errorkb_or_the_settings_changed_start_the_process_again(project, monkeypatch):
    """What the watching process loaded itself (errorkb's code, pyproject.toml, installed releases)
    cannot be swapped in place: it execs itself anew, before any check of the new round runs."""
    identities = iter([("before",), ("after",)])
    monkeypatch.setattr(watch, "identity", lambda project: next(identities))

    class Exec(Exception):
        pass

    def execv(path: str, argv: list[str]) -> None:
        raise Exec(argv)

    monkeypatch.setattr(watch.os, "execv", execv)
    rounds: list[int] = []
    with pytest.raises(Exec):
        watch.watch(project, lambda kept: rounds.append(1) or 0, lambda line: None, rounds=1, poll=0.01)
    assert rounds == []


def test_the_identity_follows_errorkb_and_the_settings(project):
    before = watch.identity(project)
    pyproject = Path(project.root) / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "\n# edited\n")
    assert watch.identity(project) != before


@pytest.mark.parametrize(("choice", "said"), [(["--no-cache"], "--no-cache"), (["--cache", "untrusted"], "--cache untrusted")])
def test_watching_without_the_verdict_cache_says_what_it_uses_instead(project, monkeypatch, capsys, choice, said):
    """`--watch --no-cache` cannot honour "no cache": a round decides what runs by the verdict key. It
    says so once, and what it uses (a cache of its own, gone at exit), instead of silently caching."""
    from errorkb.cli import main

    monkeypatch.setattr(watch, "watch", lambda project, one_round, say: 0)  # no round: only what is said first
    assert main(["--root", str(project.root), "verify", "--watch", *choice]) == 0
    printed = capsys.readouterr().out
    assert f"the verdict cache is off ({said})" in printed
    assert "a cache of its own" in printed and "deleted when it ends" in printed


def test_watching_with_the_verdict_cache_says_nothing_of_it(project, monkeypatch, capsys):
    from errorkb.cli import main

    monkeypatch.setattr(watch, "watch", lambda project, one_round, say: 0)
    assert main(["--root", str(project.root), "verify", "--watch"]) == 0
    assert "cache" not in capsys.readouterr().out
