"""What `errorkb verify` prints and writes: failure views, the summary, --json, --junit."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from errorkb.cli import main
from tests.verify.verifykb import copy_fixture


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two runs over a small copy: the second after one fix broke and one broken fix was repaired."""
    tmp = tmp_path_factory.mktemp("cli")
    root = copy_fixture(tmp / "kb", ["good-head-dim", "before-wrong-message", "after-still-raises"])
    capture = pytest.MonkeyPatch()
    results = []
    import io
    import sys

    for step in (1, 2):
        if step == 2:
            good_after = (root / "snippets/good-head-dim/after.py").read_text()
            (root / "snippets/after-still-raises/after.py").write_text(good_after)
            (root / "snippets/good-head-dim/after.py").write_text(good_after + "raise KeyError('broken on purpose')\n")
        stdout, stderr = io.StringIO(), io.StringIO()
        capture.setattr(sys, "stdout", stdout)
        capture.setattr(sys, "stderr", stderr)
        try:
            code = main(["--root", str(root), "verify", "--target", "bundled", "--no-cache", "--json",
                         "--junit", str(tmp / f"junit{step}.xml")])
        finally:
            capture.undo()
        results.append({"code": code, "stdout": stdout.getvalue(), "stderr": stderr.getvalue(),
                        "junit": tmp / f"junit{step}.xml", "root": root})
    return results


def test_json_goes_to_stdout_alone_and_the_exit_code_is_1(runs):
    first = runs[0]
    assert first["code"] == 1
    report = json.loads(first["stdout"])
    assert report["summary"] == {"pass": 7, "fail": 2, "not-run": 9, "not-applicable": 0}
    assert {c["id"] for c in report["checks"] if c["outcome"] == "fail"} == {
        "before-wrong-message::before[bundled-cpu]", "after-still-raises::after[bundled-cpu]"}
    assert (first["root"] / "reports/latest.json").is_file()


def test_the_failure_view_points_at_the_snippet_line_with_expected_and_actual(runs):
    text = runs[0]["stderr"]
    block = text[text.index("FAIL after-still-raises::after[bundled-cpu]"):]
    block = block[:block.index("\nFAIL ") if "\nFAIL " in block else len(block)]
    assert "snippets/after-still-raises/after.py:8" in block
    assert "   8 | cache.early_initialization(batch_size=1, num_heads=4, head_dim=[64, 64]" in block
    assert "expected: exits normally, having called Cache.early_initialization" in block
    assert "actual:   raised ValueError: `head_dim` was provided as a list of length 4" in block
    message = text[text.index("FAIL before-wrong-message::before[bundled-cpu]"):]
    assert "expected: `head_dim` must have {n} values, one per layer" in message
    assert "actual:   `head_dim` was provided as a list of length 4, but the Cache currently has 4 layers" in message
    lines = message.splitlines()
    actual = next(i for i, line in enumerate(lines) if "actual:   `head_dim` was" in line)
    caret = lines[actual + 1]
    assert caret.strip() == "^ first difference (character 12: 'w')"
    assert caret.index("^") == lines[actual].index("`head_dim` was") + 11  # under the 'w' of 'was'


def test_the_summary_names_unexpected_failures_and_passes(runs):
    first, second = runs
    assert "unexpected" not in first["stderr"]
    assert "unexpected failures (passed in the previous report): good-head-dim::after[bundled-cpu]" in second["stderr"]
    assert "unexpected passes (failed in the previous report): after-still-raises::after[bundled-cpu]" in second["stderr"]
    assert "7 passed, 2 failed, 9 not run (no cuda device)" in first["stderr"]


def test_junit_has_a_suite_per_target_device_with_failures_and_skips(runs):
    root = ET.parse(runs[0]["junit"]).getroot()
    suites = {suite.get("name"): suite for suite in root.iter("testsuite")}
    cpu, cuda = suites["errorkb[bundled-cpu]"], suites["errorkb[bundled-cuda]"]
    assert (cpu.get("tests"), cpu.get("failures"), cpu.get("skipped")) == ("9", "2", "0")
    assert (cuda.get("tests"), cuda.get("failures"), cuda.get("skipped")) == ("9", "0", "9")
    failed = [case for case in cpu.iter("testcase") if case.find("failure") is not None]
    assert {(case.get("classname"), case.get("name")) for case in failed} == {
        ("before-wrong-message", "before[bundled-cpu]"), ("after-still-raises", "after[bundled-cpu]")}
    assert all(case.get("file", "").startswith("snippets/") for case in cpu.iter("testcase"))


def test_a_bad_entry_id_is_a_usage_error_with_a_suggestion(runs, capsys):
    assert main(["--root", str(runs[0]["root"]), "verify", "good-head-dimm"]) == 2
    assert "did you mean 'good-head-dim'" in capsys.readouterr().err


def test_the_progress_bar_draws_only_on_a_terminal():
    import io

    from rich.console import Console

    from errorkb.cli import _progress

    for terminal in (True, False):
        sink = io.StringIO()
        console = Console(file=sink, force_terminal=terminal, width=80)
        with _progress(console, enabled=console.is_terminal) as progress:
            progress.start(3)
            for _ in range(2):
                progress.advance({})
            progress.bar.refresh() if progress.bar else None
            drawn = sink.getvalue()
            progress.advance({})
        assert ("verifying" in sink.getvalue()) is terminal
        if terminal:  # n of N, and a time estimate
            assert "2/3" in drawn and re.search(r"\d:\d\d:\d\d|-:--:--", drawn), drawn
