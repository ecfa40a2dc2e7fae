"""The knowledge base itself: every entry verified, and the site built strictly from it.

This is the test that fails the day a documented fix stops working.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.plugs import runtime_for
from errorkb.verify.requirements import essential, not_met

TORCH = runtime_for("torch")


def _why_not(project, entry, check, report):
    """The reason the one rule of needs (`requirements.not_met`, which the engine records) gives for `check`
    on this environment, in the run that made `report` (sandboxed or not), or None: it runs."""
    library = project.library
    found = not_met(entry, check.role, check.device, TORCH, project.cache_dir, Path(sys.executable),
                    hides=_sandboxed(report), keep=essential(library.dist, library.runtime, library.bundled))
    return found[1] if found else None


# `kb` and `kb_report` (tests/kb.py): the knowledge base loaded, and verified once per session.


@pytest.fixture
def report(kb_report):
    return kb_report


def _sandboxed(report):
    """Whether the run could hide what a `without:` names (only a sandboxed one can: `requirements.unmet`)."""
    return lambda: str((report.run or {}).get("isolation", "")).endswith("+bwrap")


def test_every_check_passes_on_cpu_for_both_targets(kb, report):
    project, loaded = kb
    cpu = [check for check in report.checks if check.device == "cpu"]
    expected = {(one.entry.id, role, target) for one in loaded.entries for role, _ in one.entry.snippet_files()
                for target in ("bundled", "upstream")}
    assert {(c.entry, c.role, c.target) for c in cpu} == expected
    failures = [f"{c.id}: {c.reason}" for c in cpu if c.outcome == "fail"]
    assert failures == []
    entries = {one.entry.id: one.entry for one in loaded.entries}
    for check in cpu:  # "not run" only where the entry itself declares a need this machine lacks
        if check.outcome == "not-run":
            assert check.reason == _why_not(project, entries[check.entry], check, report), check.id
        if check.outcome == "not-applicable":  # the bundled implementation lacks what the entry uses, or
            # reproduces a release (5.15.1) that does not raise it, or the entry is verified elsewhere only
            # (`targets`, a raise site in the runtime: `source.runtime`)
            assert check.target == "bundled", check.id
            declared = entries[check.entry].targets
            if declared is not None and "bundled" not in declared:
                assert check.reason.startswith(f"the entry is verified on {', '.join(declared)} only"), check.reason
            else:
                assert "the bundled implementation has no" in check.reason or \
                    "does not raise this error" in check.reason, check.reason


def test_every_cpu_check_runs(report):
    """A `without:` need is met by the sandbox hiding the package, an older `requires:` by an environment of
    its own (scripts/test.sh builds it): on the CPU nothing the knowledge base documents is left "not run"."""
    not_run = {c.id: c.reason for c in report.checks if c.device == "cpu" and c.outcome == "not-run"}
    assert not_run == {}, ("run `.venv/bin/python -m errorkb.verify.requirements --build` for a pinned need "
                           f"(scripts/test.sh does): {not_run}")


def test_the_hqq_entries_run_with_hqq(kb, report):
    """The knowledge base is verified in this environment, hqq included: tests that verify small fixtures
    run theirs without it (tests/lean.py), never these. A check whose snippet requires hqq ran on the CPU."""
    project, loaded = kb
    needing = {(one.entry.id, role) for one in loaded.entries for role, _ in one.entry.snippet_files()
               if any(need.split(">")[0].split("=")[0].strip() == "hqq" for need in one.entry.needs(role)[0])}
    assert len({entry for entry, _ in needing}) >= 3, sorted(needing)
    ran = {(c.entry, c.role) for c in report.checks if c.device == "cpu" and c.target == "upstream"
           and c.outcome in ("pass", "fail")}
    assert needing <= ran, sorted(needing - ran)


def test_every_source_pin_holds_and_every_raise_site_is_documented(kb):
    from errorkb.source.coverage import coverage
    from errorkb.source.drift import pinned_problems

    project, loaded = kb
    assert [str(p) for p in pinned_problems(loaded.entries, project)] == []
    table = coverage(loaded.entries, project)
    assert [str(p) for p in table.problems] == []
    (followed,) = table.followed
    assert (followed.documented, len(followed.rows)) == (33, 33)


def test_cuda_checks_are_not_run_without_a_device(kb, report):
    if TORCH.device_present("cuda"):
        pytest.skip("this machine has a CUDA device")
    project, loaded = kb
    entries = {one.entry.id: one.entry for one in loaded.entries}
    cuda = [check for check in report.checks if check.device == "cuda"]
    cpu = {check.id.replace("-cpu]", "]"): check for check in report.checks if check.device == "cpu"}
    assert cuda and all(check.outcome in ("not-run", "not-applicable") for check in cuda)
    for check in cuda:
        if check.outcome == "not-applicable":  # not applicable on any device: the CPU twin says the same
            assert cpu[check.id.replace("-cuda]", "]")].outcome == "not-applicable", check.id
            continue
        assert check.reason == _why_not(project, entries[check.entry], check, report), check.id
        if check.reason.startswith("needs "):  # a package need the CPU twin met (an older `requires:`, in its own
            # environment; a `without:`, hidden) is met for CUDA too
            assert cpu[check.id.replace("-cuda]", "]")].outcome == "not-run", check.id


def test_before_snippets_raise_from_the_pinned_line_upstream(kb, report):
    """Against the pinned release, the raise site is the entry's `source.line` (for a removed name or a
    changed signature the pin is the replacement's definition, not a raise site: not checked here)."""
    project, loaded = kb
    entries = {one.entry.id: one.entry for one in loaded.entries}
    for check in report.checks:
        if (check.role == "before" and check.target == "upstream" and check.device == "cpu"
                and check.outcome == "pass" and entries[check.entry].kind == "raise" and not check.wording):
            assert check.exception.raise_site.line == entries[check.entry].source.line, check.id


@pytest.fixture
def kb_copy(tmp_path, request):
    root = Path(request.config.rootpath)
    for name in ("docs", "snippets"):
        shutil.copytree(root / name, tmp_path / name)
    shutil.copy(root / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_a_before_that_stops_raising_fails_verify(kb_copy, capsys, lean_checks):
    before = kb_copy / "snippets" / "head-dim-list-length" / "before.py"
    before.write_text(before.read_text().replace("head_dim=[128, 128]", "head_dim=128"))
    code = main(["--root", str(kb_copy), "verify", "head-dim-list-length", "--device", "cpu",
                 "--report", str(kb_copy / "r.json")])
    printed = capsys.readouterr().out
    assert code == 1
    assert "FAIL head-dim-list-length::before[bundled-cpu]" in printed
    assert "snippets/head-dim-list-length/before.py" in printed
    assert "exited normally; expected ValueError from Cache.early_initialization" in printed
    report = json.loads((kb_copy / "r.json").read_text())
    assert report["summary"] == {"pass": 3, "fail": 1, "not-run": 0, "not-applicable": 0}


def test_an_after_that_raises_again_fails_verify(kb_copy, capsys, lean_checks):
    after = kb_copy / "snippets" / "num-heads-list-length" / "after.py"
    after.write_text(after.read_text().replace("num_heads=config.num_key_value_heads", "num_heads=[8, 8]"))
    code = main(["--root", str(kb_copy), "verify", "num-heads-list-length", "--device", "cpu",
                 "--report", str(kb_copy / "r.json")])
    printed = capsys.readouterr().out
    assert code == 1
    assert "FAIL num-heads-list-length::after[bundled-cpu]" in printed
    assert "snippets/num-heads-list-length/after.py:" in printed
    assert "raised ValueError: `num_head` was provided as a list of length 2" in printed
    assert "(the documented error, still)" in printed


def test_verify_rejects_an_unknown_id(kb_copy, capsys):
    assert main(["--root", str(kb_copy), "verify", "head-dim-list-lenght"]) == 2
    assert "did you mean 'head-dim-list-length'" in capsys.readouterr().err


def test_the_real_site_builds_strictly_with_every_entry_and_the_coverage_page(kb, real_site):
    """`real_site` (tests/site/sitekb.py) is the session's one strict build of mkdocs.yml, shared with
    the browser's tests; a build that fails or warns fails here as that fixture's error."""
    project, loaded = kb
    site, _ = real_site
    for one in loaded.entries:
        page = (site / "errors" / "transformers" / one.entry.id / "index.html").read_text()
        assert "What it means" in page and "ekb-badge" in page, one.entry.id
        assert (site / "api" / "errors" / f"{one.entry.id}.json").is_file()
    coverage_page = (site / "coverage" / "index.html").read_text()
    assert "33 of 33" in coverage_page and "not documented" not in coverage_page


# One check per class that read otherwise in subprocess isolation: a fresh interpreter per check costs 13 s of CPU
# (its runtime and library imported anew), and all three checks of each entry read as one. Measured with the observer
# from before each mend (the entries' before, after and guard, upstream, cpu, subprocess, sandbox require): at
# b483101^ every check of both `forward-unexpected-*` entries read "the snippet replaced sys.modules['transformers']"
# (the befores also "planted C code"), at 34b7a4a^ every check of `quanto-nbits-invalid` read "ran its own code inside
# the library's call (<string>:1)" and every one of `remote-model-without-generation-mixin` "rebound a trusted name
# (Logger.warning_once)". The befores of the first two (a release environment each: 5.24.0's `_prefill`, 4.57.6's
# `_sample`), the afters of the last two (the judge's other path: every call returned).
SUBPROCESS_SAMPLE = {"before": ["forward-unexpected-cache-kwarg", "forward-unexpected-cache-position"],
                     "after": ["quanto-nbits-invalid", "remote-model-without-generation-mixin"]}


def test_upstream_checks_pass_in_subprocess_isolation_as_in_fork(kb):
    """Isolation changes how a check is contained, never its verdict: the real knowledge base's upstream checks that
    read otherwise in a fresh interpreter per check (a library the snippet's own process imports first). (Run in
    the lean interpreter, tests/lean.py, it cost as much: 38.9 s of CPU against 36.9, load 15; the real library
    imports no quantized backend until one is used.) `quanto-nbits-invalid` (the quantized backend's import inside
    the call evaluates torch's `ForwardRef('Module')`, made before the snippet) and
    `remote-model-without-generation-mixin` (`transformers.utils.logging`'s body sets `logging.Logger.warning_once`)
    stand for the two classes that failed here and not in fork isolation before round thirty-four; the
    `forward-unexpected-*` entries for the one before round fourteen (`SUBPROCESS_SAMPLE`)."""
    from errorkb.verify.engine import verify

    project, loaded = kb
    sandbox = "require" if os.environ.get("ERRORKB_SANDBOX") == "require" else "auto"
    checks = [check for kind, ids in SUBPROCESS_SAMPLE.items()
              for check in verify(project, loaded.entries, ids=ids, targets=["upstream"], devices=["cpu"],
                                  kinds=[kind], isolation="subprocess", sandbox=sandbox).checks]
    assert [f"{c.id}: {c.reason}" for c in checks if c.outcome == "fail"] == []
    assert sorted((c.entry, c.role) for c in checks) == sorted(
        (entry, kind) for kind, ids in SUBPROCESS_SAMPLE.items() for entry in ids)
    assert {c.outcome for c in checks} == {"pass"}, [(c.id, c.outcome) for c in checks]
