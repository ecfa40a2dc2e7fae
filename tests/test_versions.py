"""Raise sites by AST, drift of source pins, coverage of the pinned module, the version matrix."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import textwrap
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.keys import project_inputs
from errorkb.results.matrix import (
    MatrixFile,
    ReleaseStatus,
    Result,
    Verdicts,
    describe_spans,
    line_spans,
    merged,
    sort_releases,
    summarize,
    write_matrix,
)
from errorkb.results.records import Code
from errorkb.source.coverage import coverage
from errorkb.source.raise_sites import functions, raise_sites, template_of
from errorkb.verify.matrix import Env, collect, release_checks, run_release
from tests.kb import PROFILE, copy_kb

PINNED = "5.15.1"


def upstream_is_pinned() -> bool:
    import importlib.metadata

    try:
        return importlib.metadata.version("transformers") == PINNED
    except importlib.metadata.PackageNotFoundError:
        return False


needs_pinned = pytest.mark.skipif(not upstream_is_pinned(), reason=f"needs transformers=={PINNED} installed")

SOURCE = textwrap.dedent('''\
    class Cache:
        def early(self, n):
            if n:
                raise ValueError(
                    f"`n` was {len(n)}, "
                    "but {braces} stay literal"
                )
            raise

    def helper():
        def inner():
            raise KeyError(f"missing {key!r}")
        raise RuntimeError
''')


def test_raise_sites_follow_python_qualnames_and_join_literals():
    sites = raise_sites(SOURCE)
    assert [(s.line, s.function, s.exception, s.message) for s in sites] == [
        (4, "Cache.early", "ValueError", "`n` was {len(n)}, but {{braces}} stay literal"),
        (8, "Cache.early", None, None),
        (12, "helper.<locals>.inner", "KeyError", "missing {key!r}"),
        (13, "helper", "RuntimeError", None),
    ]
    assert functions(SOURCE)["Cache.early"].first == 2
    assert functions(SOURCE)["helper.<locals>.inner"].last == 12


def test_template_of_rejects_non_literals():
    assert template_of("message + suffix") is None
    assert template_of('"a\\nb"') == "a\nb"


@needs_pinned
def test_the_pinned_module_has_the_33_documented_raise_sites():
    import transformers.cache_utils as upstream

    sites = raise_sites(Path(upstream.__file__).read_text())
    assert len(sites) == 33
    by_line = {site.line: site for site in sites}
    assert by_line[1471].function == "Cache.early_initialization"
    assert by_line[1471].message == ("`head_dim` was provided as a list of length {len(num_heads)}, "
                                     "but the Cache currently has {len(self.layers)} layers")
    assert by_line[1423].message == "Cannot call `update_conv_state` on a non-LinearAttention layer!"
    assert by_line[1986].message == "Expected {len(combined_cache_data) = } to be 4 or 6.\n{combined_cache_data = }"


@pytest.fixture
def two_entries(tmp_path, project_root):
    """A project holding the two early_initialization entries, as in the repository."""
    return copy_kb(tmp_path, ["head-dim-list-length", "num-heads-list-length"])


@needs_pinned
def test_drift_check_passes_then_fails_when_a_pin_moves_by_one_line(two_entries, capsys):
    assert main(["--root", str(two_entries), "check", "--drift"]) == 0
    assert "every source pin holds" in capsys.readouterr().out

    entry = two_entries / "docs" / "errors" / "transformers" / "head-dim-list-length.yml"
    text = entry.read_text()
    entry.write_text(text.replace("line: 1471", "line: 1472"))
    assert main(["--root", str(two_entries), "check", "--drift"]) == 1
    printed = capsys.readouterr().err
    assert ("docs/errors/transformers/head-dim-list-length.yml:10:9: expected a raise in Cache.early_initialization "
            "at line 1472 of src/transformers/cache_utils.py in 5.15.1, found none; the matching raise is at line 1471"
            ) in printed

    entry.write_text(text.replace("`head_dim` was provided", "`head_dims` was provided"))
    assert main(["--root", str(two_entries), "check", "--drift"]) == 1
    assert "message differs at line 1471" in capsys.readouterr().err

    entry.write_text(text)
    assert main(["--root", str(two_entries), "check", "--drift"]) == 0


@needs_pinned
def test_coverage_requires_an_entry_or_an_exemption_and_checks_the_exemptions(two_entries):
    project = load_project(two_entries)
    loaded = load_project_entries(project).entries
    table = coverage(loaded, project)
    (followed,) = table.followed
    assert followed.documented == 2 and len(followed.rows) == 33 and followed.sites == 33
    assert len(table.problems) == 31 and "has no entry" in table.problems[0].message

    others = [row.site.line for row in followed.rows if not row.entries]
    exempt = "".join(f'\n[[tool.errorkb.coverage.exempt]]\nline = {line}\nreason = "later"\n' for line in others)
    (two_entries / "pyproject.toml").write_text("[tool.errorkb]\n" + exempt + PROFILE)
    assert coverage(loaded, load_project(two_entries)).problems == []

    stale = exempt + '\n[[tool.errorkb.coverage.exempt]]\nline = 1471\nreason = "documented now"\n' \
                     '\n[[tool.errorkb.coverage.exempt]]\nline = 5\nreason = "no such site"\n'
    (two_entries / "pyproject.toml").write_text("[tool.errorkb]\n" + stale + PROFILE)
    messages = [p.message for p in coverage(loaded, load_project(two_entries)).problems]
    assert messages == [
        "exemption for line 1471 is obsolete: head-dim-list-length documents it; remove the exemption",
        "exemption for line 5 names no raise site of src/transformers/cache_utils.py; remove it or fix the line",
    ]


def test_release_lists_are_sorted_and_prereleases_dropped():
    assert sort_releases(["5.10.1", "5.2.0", "4.57.6", "5.11.0rc1", "junk", "5.2.0"], "5.0.0") == ["5.2.0", "5.10.1"]


def _verdicts(outcome: str, sha: str = "h1", reason: str = "") -> Verdicts:
    code = {"pass": Code.RAISED_AS_DOCUMENTED, "fail": Code.EXITED_NORMALLY, "not-run": Code.UNMET_NEED}[outcome]
    return Verdicts(outcome=outcome, code=code, reason=reason or outcome, sha256=sha)


def _matrix(results: dict[str, str], digest: str = "d1") -> MatrixFile:
    """A matrix with one entry whose before outcome per release is given ("setup": the release did not run)."""
    statuses = [ReleaseStatus(release=r, ran=o != "setup", error="x" if o == "setup" else None, measured="2026-11-30")
                for r, o in results.items()]
    rows = [Result(entry="e", release=r, before=_verdicts(o), after=_verdicts("pass"), line=10, digest=digest,
                   measured="2026-11-30") for r, o in results.items() if o != "setup"]
    return merged(None, "transformers", statuses, rows)


def test_summaries_give_ranges_and_the_fixing_release():
    matrix = _matrix({"5.0.0": "fail", "5.5.1": "pass", "5.6.0": "setup", "5.8.1": "pass", "5.9.0": "fail"})
    summary = summarize("e", matrix, "d1")
    assert summary.raises == [("5.5.1", "5.8.1")]
    assert describe_spans(summary.raises) == "5.5.1 – 5.8.1"
    assert summary.fixed_in == "5.9.0"
    assert summary.failed_setup == ["5.6.0"]
    assert not summary.stale
    assert summarize("e", matrix, "d2").stale
    assert not summarize("e", matrix, None).stale, "None: staleness not asked (the lookup)"


def test_any_change_to_the_entry_or_its_snippet_folder_makes_matrix_results_stale(two_entries):
    """The matrix keys on the same inputs as the verdict cache: the whole entry and every file of
    its snippet folder. Each of these edits once kept a result "fresh" (only exception, message,
    source and expect counted)."""
    project = load_project(two_entries)
    entry = next(one.entry for one in load_project_entries(project).entries if one.entry.id == "head-dim-list-length")
    folder = project.snippets / entry.id
    matrix = _matrix({"5.15.1": "pass"}, digest=project_inputs(project, entry))
    assert not summarize("e", matrix, project_inputs(project, entry)).stale
    dumped = entry.model_dump(mode="json", exclude_none=True)
    wording = {"message": "`head_dim` must have {n} values, one per layer", "exception": "ValueError"}
    edited = {
        "source line": entry.model_copy(update={"source": entry.source.model_copy(update={"line": 2})}),
        "also_seen_as": type(entry).model_validate_json(json.dumps({**dumped, "also_seen_as": [wording]})),
        "kind": entry.model_copy(update={"kind": "signature"}),
        "title": entry.model_copy(update={"title": entry.title + " (edited)"}),
    }
    for name, other in edited.items():
        assert summarize("e", matrix, project_inputs(project, other)).stale, name
    for name, path in {"a module beside the snippets": folder / "helper.py",
                       "a data file in a subfolder": folder / "data" / "shape.json"}.items():
        path.parent.mkdir(exist_ok=True)
        path.write_text("X = 1\n")
        assert summarize("e", matrix, project_inputs(project, entry)).stale, name
        path.unlink()
        if path.parent != folder:
            path.parent.rmdir()
    assert not summarize("e", matrix, project_inputs(project, entry)).stale, "the same inputs again"


def test_a_target_module_missing_from_a_release_is_not_run_there_not_does_not_raise():
    """Mamba before 4.39: the check could not load its module; that release tested nothing."""
    matrix = _matrix({"4.36.2": "fail", "4.39.3": "pass", "4.44.2": "fail"})
    missing = next(r for r in matrix.results if r.release == "4.36.2")
    matrix = merged(matrix, "transformers", [], [missing.model_copy(update={"before": Verdicts(
        outcome="fail", code=Code.SETUP_FAILED, reason="could not load the target: ModuleNotFoundError")})])
    summary = summarize("e", matrix, None)
    assert summary.ran == ["4.39.3", "4.44.2"] and summary.tested == 2
    assert summary.raises == [("4.39.3", "4.39.3")] and summary.fixed_in == "4.44.2"


def test_summaries_of_an_error_still_raised_in_the_newest_release():
    summary = summarize("e", _matrix({"5.4.0": "fail", "5.5.1": "pass", "5.24.0": "pass"}), None)
    assert summary.raises == [("5.5.1", "5.24.0")] and summary.fixed_in is None


@needs_pinned
def test_run_release_verifies_inside_the_release_s_interpreter(two_entries):
    from errorkb.verify.engine import Upstream, Verifier

    project = load_project(two_entries)
    loaded = load_project_entries(project).entries
    verifier = Verifier(project, ["upstream"], upstream=Upstream.INSTALLED, environments={PINNED: Path(sys.executable)})
    try:
        records = run_release(verifier, release_checks(project, loaded, PINNED, ["head-dim-list-length"]))
    finally:
        verifier.close()
    entries = [one.entry for one in loaded]
    (result,) = collect(entries, PINNED, records, lambda path: None, {e.id: project_inputs(project, e) for e in entries})
    assert (result.entry, result.before.outcome, result.after.outcome) == ("head-dim-list-length", "pass", "pass")
    assert result.line == 1471 and result.before.code is Code.RAISED_AS_DOCUMENTED
    assert {record.isolation for record in records if record.outcome.ran} == {"fork+bwrap"}, "matrix checks run sandboxed"
    assert {record.release for record in records} == {PINNED}


@needs_pinned
def test_a_rerun_answers_from_the_cache_and_runs_only_what_changed(two_entries, monkeypatch):
    """The matrix after one entry changed runs that entry's checks alone, and starts no worker at
    all when nothing changed; the verdicts it did not re-measure are the cached ones."""
    from errorkb.verify import matrix
    from errorkb.verify.pool import WorkerPool

    project = load_project(two_entries)
    loaded = load_project_entries(project).entries
    monkeypatch.setattr(matrix, "ensure_env", lambda project, release, rebuild=False: Env(release, Path(sys.executable)))
    started: list[str] = []
    real = WorkerPool.run

    def counted(self, check, timeout, python=None, **options):  # options: the run's `wall_s`
        started.append(check.entry.id)
        return real(self, check, timeout, python, **options)

    monkeypatch.setattr(WorkerPool, "run", counted)
    ready = matrix.matrix_env(project, PINNED) / ".errorkb-ready"  # so what is known is answered first
    ready.parent.mkdir(parents=True)
    ready.write_text(PINNED)
    preloads: list[list[str]] = []
    real_run_release = matrix.run_release

    def preloading(verifier, checks, jobs=2):
        preloads.append(list(verifier.pool.preload))
        return real_run_release(verifier, checks, jobs)

    monkeypatch.setattr(matrix, "run_release", preloading)

    def verdicts(data: MatrixFile) -> set[tuple]:
        return {(r.entry, r.before.code, r.after.code, r.before.sha256, r.measured) for r in data.results}

    said: list[str] = []
    first = matrix.run_matrix(project, loaded, [PINNED], progress=said.append)
    assert sorted(set(started)) == sorted(one.entry.id for one in loaded) and len(started) == 4
    assert f"transformers {PINNED} (1 of 1): 4 of 4 checks run, 0 from the cache" in said
    assert {(r.before.code, r.after.code) for r in first.results} == {(Code.RAISED_AS_DOCUMENTED, Code.RAN_CLEAN)}
    again = matrix.run_matrix(project, loaded, [PINNED], progress=said.append)
    assert started[4:] == [], "nothing changed, yet a check ran"
    assert f"transformers {PINNED} (1 of 1): 0 of 4 checks run, 4 from the cache" in said
    assert verdicts(again) == verdicts(first) and again.status(PINNED).ran
    assert preloads[0] and preloads[1] == [], "nothing left to run, nothing to preload"

    after = two_entries / "snippets" / "head-dim-list-length" / "after.py"
    after.write_text(after.read_text() + "# one entry changed\n")
    changed = matrix.run_matrix(project, load_project_entries(project).entries, [PINNED])
    assert started[4:] == ["head-dim-list-length"] * 2, "a file of its snippet folder changed: both its checks run"
    kept = {v for v in verdicts(changed) if v[0] != "head-dim-list-length"}
    assert kept == {v for v in verdicts(first) if v[0] != "head-dim-list-length"}


def test_a_release_without_an_environment_is_reported_not_fatal(two_entries, monkeypatch):
    from errorkb.verify import matrix

    project = load_project(two_entries)
    monkeypatch.setattr(matrix, "ensure_env",
                        lambda project, release, rebuild=False: Env(release, None, "set-up failed: no such release"))
    data = matrix.run_matrix(project, load_project_entries(project).entries, ["5.0.0"])
    status = data.status("5.0.0")
    assert status is not None and not status.ran and status.error == "set-up failed: no such release"
    assert data.results == []


def test_the_shared_modules_a_release_loads_are_measured_in_its_own_interpreter_once(two_entries, tmp_path):
    """A release is given a stem's preloads only for what its own interpreter loads; the measurement
    is kept with its environment and made again when the question changes."""
    from errorkb.verify.matrix import shared_loads
    from tests.verify.test_stem import make_env

    python = make_env(tmp_path / "env")
    base = load_project(two_entries)

    def asking(shared: dict[str, str]):
        return dataclasses.replace(base, matrix=base.matrix.model_copy(update={"shared": shared}))

    project = asking({"json": "email.parser", "xml.dom.minidom": "email.parser"})
    record = python.parent.parent / ".errorkb-shared.json"
    assert shared_loads(project, Env("x", python)) == {"json": "email.parser"}  # email.parser loads no minidom
    assert json.loads(record.read_text())["loads"] == {"json": "email.parser"}
    record.write_text(json.dumps({"asked": project.matrix.shared, "loads": {"kept": "as measured"}}))
    assert shared_loads(project, Env("x", python)) == {"kept": "as measured"}
    project = asking({"json": "email.parser"})
    assert shared_loads(project, Env("x", python)) == {"json": "email.parser"}
    assert shared_loads(project, Env("x", None, "no environment")) == {}


def test_a_before_never_run_is_not_reported_as_not_raising():
    matrix = _matrix({"5.4.0": "not-run", "5.5.1": "not-run"})
    matrix = merged(matrix, "transformers", [], [
        r.model_copy(update={"before": _verdicts("not-run", reason="needs hqq>=0.2.1 (not installed)")})
        for r in matrix.results])
    summary = summarize("e", matrix, None)
    assert summary.raises == [] and summary.tested == 0 and summary.fixed_in is None
    assert summary.not_run == "needs hqq>=0.2.1 (not installed)"


def test_the_fixing_release_keeps_what_the_before_did_there():
    matrix = _matrix({"5.5.1": "pass", "5.23.0": "fail"})
    fixed = next(r for r in matrix.results if r.release == "5.23.0")
    matrix = merged(matrix, "transformers", [], [fixed.model_copy(update={
        "before": _verdicts("fail", reason="message differs\n  expected: a\n  actual:   b")})])
    summary = summarize("e", matrix, None)
    assert summary.fixed_in == "5.23.0" and summary.fixed_reason.startswith("message differs")


def test_raise_lines_are_merged_over_consecutive_releases():
    lines = {"5.5.1": 1007, "5.6.0": 1007, "5.8.0": 1063, "5.15.1": 1471}
    assert line_spans(lines, ["5.5.1", "5.6.0", "5.7.0", "5.8.0", "5.15.1"]) == [
        ("5.5.1", "5.6.0", 1007), ("5.8.0", "5.8.0", 1063), ("5.15.1", "5.15.1", 1471)]


def test_a_partial_run_keeps_every_other_result_and_writes_one_record_per_line(tmp_path):
    """`errorkb matrix ID --release X` replaces that entry's result in that release, and nothing else."""
    full = _matrix({"5.0.0": "fail", "5.5.1": "pass", "5.24.0": "pass"})
    other = merged(full, "transformers", [], [r.model_copy(update={"entry": "f"}) for r in full.results])
    path = tmp_path / "matrix.json"
    write_matrix(path, "transformers", other.releases, other.results)
    before = path.read_text().splitlines()
    assert len(other.results) == 6 and all(line.startswith('{"entry"') for line in before if '"entry"' in line)

    one = Result(entry="e", release="5.5.1", before=_verdicts("fail"), after=_verdicts("pass"), line=None,
                 digest="d1", measured="2026-12-01")
    again = write_matrix(path, "transformers", [ReleaseStatus(release="5.5.1", ran=True, measured="2026-12-01")],
                         [one])
    after = path.read_text().splitlines()
    assert len(again.results) == 6 and len(again.releases) == 3
    changed = [line for line in after if line not in before and '"updated"' not in line]
    assert len(changed) == 2, changed  # that release's status and that one result (besides the header's date)
    assert sum('"entry":"e","release":"5.5.1"' in line for line in changed) == 1
    assert sum(line.startswith('{"release":"5.5.1"') for line in changed) == 1


def test_the_matrix_command_prints_n_of_n_and_a_time_estimate(two_entries, monkeypatch, capsys):
    """`errorkb matrix` says which release of how many it is on, and how long the rest should take."""
    from errorkb.verify import matrix

    monkeypatch.setattr(matrix, "ensure_env", lambda project, release, rebuild=False: Env(release, Path(sys.executable)))
    monkeypatch.setattr(matrix, "run_release", lambda verifier, checks, jobs=2: [])
    assert main(["--root", str(two_entries), "matrix", "--release", "5.0.0", "--release", "5.1.0"]) == 0
    err = capsys.readouterr().err
    assert "transformers 5.0.0 (1 of 2): environment" in err
    assert "transformers 5.1.0 (2 of 2): 0 of 0 checks run, 0 from the cache" in err
    # the figures are this machine's (a busy one takes a second): the words around them are the test's
    assert re.search(r"\[1/2, [\d.]+ (s|min) elapsed, about [\d.]+ (s|min) left\]", err) and "[2/2, " in err, err


def test_the_matrix_command_says_where_a_declared_range_and_the_measurement_disagree(two_entries, monkeypatch,
                                                                                      capsys):
    from errorkb.verify import matrix

    entry = two_entries / "docs" / "errors" / "transformers" / "head-dim-list-length.yml"
    entry.write_text(entry.read_text().replace("\nsource:", '\nreleases: {raises: ">=5.6"}\nsource:', 1))
    measured = _matrix({"5.4.0": "fail", "5.5.1": "pass", "5.6.0": "pass"})
    measured = merged(None, "transformers", measured.releases,
                      [r.model_copy(update={"entry": "head-dim-list-length"}) for r in measured.results])
    monkeypatch.setattr(matrix, "run_matrix", lambda *a, **k: measured)
    assert main(["--root", str(two_entries), "matrix", "head-dim-list-length", "--release", "5.6.0"]) == 0
    printed = capsys.readouterr()
    assert "head-dim-list-length: raises in 5.5.1 – 5.6.0" in printed.out
    assert "head-dim-list-length: declared to raise in >=5.6, but the matrix disagrees in 5.5.1" in printed.err


def test_environments_only_builds_the_releases_the_entries_pin_and_runs_nothing(two_entries, monkeypatch, capsys):
    """`errorkb matrix --environments-only` (scripts/test.sh runs it): the pinned releases not
    installed here, each once; no check runs and the matrix file is not written."""
    from errorkb.verify import matrix

    entry = two_entries / "docs" / "errors" / "transformers" / "num-heads-list-length.yml"
    entry.write_text(entry.read_text().replace("release: 5.15.1", "release: 4.99.0"))
    built = []
    monkeypatch.setattr(matrix, "ensure_env", lambda project, release, rebuild=False: built.append(release) or
                        Env(release, Path(sys.executable)))
    monkeypatch.setattr(matrix, "run_matrix", lambda *a, **k: pytest.fail("--environments-only ran the matrix"))
    assert main(["--root", str(two_entries), "matrix", "--environments-only"]) == 0
    assert built == ["4.99.0"] and "1 of 1 release environments ready" in capsys.readouterr().out
    assert not (two_entries / "reports" / "matrix").exists()


def test_raise_messages_are_read_right_whatever_the_line_endings():
    """Messages are cut out of the file by the parser's offsets: UTF-8 bytes, lines ended by \\n,
    \\r\\n or \\r (a form feed is not a line end)."""
    source = "x = 1\f\ny = 'é'\r\nraise ValueError('é: '\r\n  f'{x} b')\rraise KeyError('ü' 'x')\n"
    assert [(site.line, site.exception, site.message) for site in raise_sites(source)] == [
        (3, "ValueError", "é: {x} b"), (5, "KeyError", "üx")]


def test_a_raise_line_found_earlier_is_kept_while_its_expectation_and_verdict_hold(two_entries):
    """collect() finds a not-raising before's raise line in the release's source (parsing it), or
    keeps the line of the same entry's earlier result there when nothing it depends on changed."""
    from errorkb.results.records import CheckRecord

    project = load_project(two_entries)
    entry = next(one.entry for one in load_project_entries(project).entries if one.entry.id == "head-dim-list-length")
    record = CheckRecord(id="x", entry=entry.id, role="before", snippet="s", snippet_sha256="h1", target="upstream",
                         device="cpu", release="5.0.0", outcome="fail", code=Code.EXITED_NORMALLY, reason="fail",
                         expected="raise", verified_at="2026-12-01")
    digests = {entry.id: "d1"}
    kept = Result(entry=entry.id, release="5.0.0", before=_verdicts("fail"), line=977, digest="d1",
                  measured="2026-11-30")
    read: list[str] = []

    def index(path: str):
        read.append(path)
        return None

    (result,) = collect([entry], "5.0.0", [record], index, digests, {entry.id: kept})
    assert result.line == 977 and read == []
    for changed in ({entry.id: kept.model_copy(update={"digest": "d0"})},
                    {entry.id: kept.model_copy(update={"before": _verdicts("fail", reason="other")})}):
        (result,) = collect([entry], "5.0.0", [record], index, digests, changed)
        assert result.line is None and read.pop() == entry.source.path


def test_an_environment_that_times_out_is_reported_and_built_again_next_time(two_entries, monkeypatch, capsys):
    """A pip step past its limit (a busy machine, a slow index) is a failed release with the reason,
    never a traceback, and not remembered as failed: the next run builds it again."""
    import subprocess

    from errorkb.verify import matrix

    project = load_project(two_entries)

    def slow(step, **kwargs):
        if "install" in step:
            raise subprocess.TimeoutExpired(step, kwargs.get("timeout"))
        (Path(step[-1]) / "lib" / "python3.11" / "site-packages").mkdir(parents=True, exist_ok=True)  # the venv
        return subprocess.CompletedProcess(step, 0, "", "")

    monkeypatch.setattr(matrix.subprocess, "run", slow)
    env = matrix.ensure_env(project, "4.40.2")
    assert env.python is None and "timed out after 900 s" in (env.error or "")
    folder = matrix.matrix_env(project, "4.40.2")
    assert not (folder / ".errorkb-failed").exists() and not (folder / ".errorkb-ready").exists()

    assert main(["--root", str(two_entries), "matrix", "--environments-only", "--release", "4.40.2"]) == 1
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err and "4.40.2" in out.out + out.err


def test_a_remembered_failure_says_how_to_try_again(two_entries):
    """A failed set-up is remembered (a release that cannot install is not retried on every run), but
    the failure may have been the network's: the message says where it is kept and how to retry."""
    from errorkb.verify import matrix

    project = load_project(two_entries)
    folder = matrix.matrix_env(project, "4.43.4")
    folder.mkdir(parents=True)
    (folder / ".errorkb-failed").write_text("set-up failed: Connection reset by peer", encoding="utf-8")
    env = matrix.ensure_env(project, "4.43.4")
    assert env.python is None and "Connection reset by peer" in (env.error or "")
    assert "--rebuild --release 4.43.4" in (env.error or "")


@pytest.mark.parametrize("stale", [True, False])
def test_a_matrix_run_that_leaves_the_hook_index_stale_says_so(two_entries, monkeypatch, capsys, stale):
    """The index carries the matrix's raise lines: after a run that changed them, CI's `hook index --check`
    failed on the committed index (this stop's CI). The run itself now says so, with the mending command."""
    from errorkb.site import hookindex
    from errorkb.verify import matrix

    monkeypatch.setattr(matrix, "run_matrix", lambda *a, **k: _matrix({"5.6.0": "pass"}))
    monkeypatch.setattr(hookindex, "index_file", lambda project: two_entries / "index.json")
    monkeypatch.setattr(hookindex, "stale", lambda project, entries, path=None: stale)
    assert main(["--root", str(two_entries), "matrix", "head-dim-list-length", "--release", "5.6.0"]) == 0
    said = "errorkb matrix: index.json is now stale: run `errorkb hook index` and commit it"
    assert (said in capsys.readouterr().err) is stale


def test_a_matrix_result_names_who_judged_its_records_not_the_run_that_reused_them(two_entries):
    """A verdict reused from the cache keeps the errorkb release that ran it (`report.stamped`, the one owner of
    the stamp) in the matrix too: collect() takes the result's verifier and release from its records, a record this
    run made is this errorkb's, and a before and after that ran under different releases say no one release."""
    from errorkb import __version__
    from errorkb.results.records import CheckRecord
    from errorkb.results.report import VERIFIER_VERSION

    project = load_project(two_entries)
    entry = next(one.entry for one in load_project_entries(project).entries if one.entry.id == "head-dim-list-length")

    def record(role: str, **update: object) -> CheckRecord:
        made = CheckRecord(id=role, entry=entry.id, role=role, snippet="s", snippet_sha256="h1", target="upstream",
                           device="cpu", release="5.0.0", outcome="pass", code=Code.RAN_CLEAN, reason="ran",
                           expected="raise", verified_at="2026-12-01")
        return made.model_copy(update=update)

    def judged(*records: CheckRecord) -> tuple[str | None, str | None]:
        (result,) = collect([entry], "5.0.0", list(records), lambda path: None, {entry.id: "d1"})
        return result.verifier, result.errorkb

    older = {"verifier": VERIFIER_VERSION, "errorkb": "0.0.1"}
    assert judged(record("before", **older), record("after", **older)) == (VERIFIER_VERSION, "0.0.1")
    assert judged(record("before"), record("after")) == (VERIFIER_VERSION, __version__)
    assert judged(record("before", **older), record("after")) == (VERIFIER_VERSION, None)
