"""The version matrix's release status: a release "does not import" only when the library itself
does not import there, never because one entry's checks could not set up; and a run for some
entries leaves every other entry's rows, and a status it did not measure, as they were.

The checks' verdicts are made up here (`run_release` is replaced): what is tested is how the
matrix reads them; test_versions runs real checks."""

from __future__ import annotations

import importlib.metadata
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.matrix import State, read_matrix, release_states
from errorkb.results.records import Code, Outcome
from errorkb.verify import matrix
from errorkb.verify.records import Verdict, not_run
from tests.kb import copy_kb

IDS = ["head-dim-list-length", "num-heads-list-length"]
OLD, NEW = "4.40.2", "5.0.0"
MISSING = Verdict(outcome=Outcome.FAIL, code=Code.SETUP_FAILED,
                  reason="could not load the target: ModuleNotFoundError: No module named 'transformers.masking_utils'")
RAISED = Verdict(outcome=Outcome.PASS, code=Code.RAISED_AS_DOCUMENTED, reason="raised as documented")
CLEAN = Verdict(outcome=Outcome.PASS, code=Code.RAN_CLEAN, reason="ran clean")

Verdicts = Callable[[str, str, str], Verdict]
runs: list[int] = []


def fine(entry: str, release: str, kind: str) -> Verdict:
    return RAISED if kind == "before" else CLEAN


@pytest.fixture
def project(tmp_path, monkeypatch):
    """The two early_initialization entries; every release's environment is this interpreter."""
    runs.clear()
    monkeypatch.setattr(matrix, "ensure_env", lambda project, release, rebuild=False:
                        matrix.Env(release, Path(sys.executable)))
    return load_project(copy_kb(tmp_path, IDS))


def run(monkeypatch, project, releases: list[str], verdicts: Verdicts, ids: list[str] | None = None,
        library: str | None = None, cached: bool = False):
    """`errorkb matrix [IDS]` on `releases`, each check answered `verdicts(entry, release, kind)`
    as a run records it (`cached`: as the verdict cache answers it); `library`: why the library
    itself does not import (None: it imports)."""
    from errorkb.verify.engine import record_of

    asked: list[str] = []
    runs.append(len(runs) + 1)  # each run writes at its own moment, a day after the one before
    monkeypatch.setattr(matrix, "now", lambda: f"2026-12-{runs[-1]:02d}T00:00:00+00:00")
    monkeypatch.setattr(matrix, "library_problem",
                        lambda project, python, release: asked.append(release) or library, raising=False)

    def run_release(verifier, checks, jobs=2):
        records = []
        for check in checks:
            verdict = verdicts(check.entry.id, check.release, check.kind)
            record = record_of(check, project, verdict, inputs=verifier.inputs(check.entry))
            if verdict.outcome.ran:  # a check's process reports its environment once it has set up
                reported = None if verdict.code in (Code.SETUP_FAILED, Code.WORKER_DIED) else \
                    {"runtime_version": "2.13.0+cpu"}
                record = record.model_copy(update={"isolation": "fork+bwrap", "cached": cached,
                                                   "environment": reported})
            records.append(record)
        return records

    monkeypatch.setattr(matrix, "run_release", run_release)
    matrix.run_matrix(project, load_project_entries(project).entries, releases, ids=ids, cache=False)
    data = read_matrix(project)
    assert data is not None
    return data, asked


def rows(data, entry: str) -> dict:
    return {r.release: r for r in data.results if r.entry == entry}


def test_one_entry_whose_setup_fails_leaves_the_release_and_the_other_entries_as_the_whole_run_measured(
        project, monkeypatch):
    """`errorkb matrix ID` for an entry whose module a release lacks: that entry's own row says so;
    the release still imports, and what the whole run measured for the others stands."""
    whole, _ = run(monkeypatch, project, [OLD, NEW], fine)

    def lacks_its_module_in_old(entry, release, kind):
        return MISSING if release == OLD else fine(entry, release, kind)

    one, asked = run(monkeypatch, project, [OLD, NEW], lacks_its_module_in_old, ids=["num-heads-list-length"])
    assert one.status(OLD) == whole.status(OLD), "the release's status is the whole run's, untouched"
    assert one.status(OLD).ran and one.status(NEW).ran
    assert rows(one, "head-dim-list-length") == rows(whole, "head-dim-list-length")
    mine = rows(one, "num-heads-list-length")[OLD]
    assert (mine.before.code, mine.after.code) == (Code.SETUP_FAILED, Code.SETUP_FAILED)
    state = {s.release: s for s in release_states("num-heads-list-length", one)}[OLD]
    assert state.state is State.NOT_APPLICABLE and "transformers.masking_utils" in state.before
    other = {s.release: s for s in release_states("head-dim-list-length", one)}[OLD]
    assert other.state is State.RAISES, "the other entry's cell at that release is as measured"
    assert asked == [OLD], "the library's own import is measured where every check failed its set-up, only there"


def test_a_whole_run_in_which_every_entry_lacks_its_module_still_ran_the_release(project, monkeypatch):
    """Every entry pinned to modules a release lacks: each entry's row says so; the release imports."""
    data, asked = run(monkeypatch, project, [OLD], lambda entry, release, kind: MISSING)
    status = data.status(OLD)
    assert status.ran and status.error is None, status
    assert {entry: r.before.code for entry, r in ((e, rows(data, e)[OLD]) for e in IDS)} == \
        dict.fromkeys(IDS, Code.SETUP_FAILED)


def test_a_release_whose_library_does_not_import_is_marked_so_with_the_measured_reason(project, monkeypatch):
    """Where the library's own import fails, the release did not run, with that reason: measured by
    this run, so it replaces the status an earlier run wrote."""
    run(monkeypatch, project, [OLD], fine)
    broken = "transformers 4.40.2 does not import here: ImportError: cannot import name 'x' from 'torch'"
    data, _ = run(monkeypatch, project, [OLD], lambda entry, release, kind: MISSING, ids=["num-heads-list-length"],
                  library=broken)
    status = data.status(OLD)
    assert not status.ran and status.error == broken


@pytest.mark.parametrize("answer", ["not-run", "cached", "set-up-failed-cached", "worker-died"])
def test_a_run_that_measured_nothing_at_a_release_leaves_its_status_alone(project, monkeypatch, answer):
    """Checks answered without running (an unmet need, the verdict cache), or whose worker died before
    they reported anything (a sandbox that could not start), measured nothing about the release: its
    status (runtime, isolation, when) stays the one the whole run measured."""
    whole, _ = run(monkeypatch, project, [OLD], fine)
    died = Verdict(outcome=Outcome.FAIL, code=Code.WORKER_DIED, cacheable=False,
                   reason="the verifier's worker died, so the check did not complete: bwrap: Can't mkdir ...")
    verdicts: Verdicts = {"not-run": lambda e, r, k: not_run(Code.UNMET_NEED, "needs optimum-quanto"),
                          "cached": fine, "set-up-failed-cached": lambda e, r, k: MISSING,
                          "worker-died": lambda e, r, k: died}[answer]
    one, _ = run(monkeypatch, project, [OLD], verdicts, ids=["num-heads-list-length"],
                 cached=answer in ("cached", "set-up-failed-cached"))
    assert one.status(OLD) == whole.status(OLD)
    assert rows(one, "head-dim-list-length") == rows(whole, "head-dim-list-length")


def test_a_first_run_answered_from_the_cache_still_writes_the_release_status(project, monkeypatch):
    """A matrix file without the release gets its status even when every verdict came from the cache:
    without one, its rows could not be read."""
    data, _ = run(monkeypatch, project, [OLD], fine, cached=True)
    assert data.status(OLD) is not None and data.status(OLD).ran and data.status(OLD).runtime == "2.13.0+cpu"


def test_the_library_s_own_import_is_measured_in_the_release_s_interpreter(project):
    """The measurement itself: this interpreter imports its installed release from its own
    environment; asked for another release, it says the library is not that release here."""
    installed = importlib.metadata.version(project.library.dist)
    assert matrix.library_problem(project, Path(sys.executable), installed) is None
    problem = matrix.library_problem(project, Path(sys.executable), "4.40.2")
    assert problem is not None and problem.startswith(f"{project.library.dist}==4.40.2 does not import here")
