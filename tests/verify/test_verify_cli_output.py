"""What `errorkb verify` prints and writes: failure views, the summary, --json, --junit."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from errorkb.cli import main
from tests.lean import checks_in
from tests.verify.verifykb import copy_fixture


@pytest.fixture(scope="module")
def runs(tmp_path_factory, lean_python):
    """Two runs over a small copy: the second after one fix broke and one broken fix was repaired (their
    checks in the lean interpreter: tests/lean.py)."""
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
            with checks_in(lean_python):
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


def test_the_summary_names_what_changed_since_the_previous_report_in_plain_words(runs):
    """A check that failed before and passes now is good news (a draft finished, a fix landed): "unexpected
    passes" alarmed a newcomer. The summary says what happened and what to do, for both directions."""
    first, second = runs
    assert "now failing" not in first["stderr"] and "now passing" not in first["stderr"]
    assert "now failing (passed in the previous report; each failure is shown above): " \
           "good-head-dim::after[bundled-cpu]" in second["stderr"]
    assert "now passing (failed in the previous report; fixed since, nothing to do): " \
           "after-still-raises::after[bundled-cpu]" in second["stderr"]
    assert "unexpected" not in second["stderr"]
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


# -- what the CLI prints is inert in a terminal and in a CI log ---------------------------------

HOSTILE_PRINTS = '''\
import sys
print("::error file=README.md,line=1::forged annotation from stdout")
print("  \\t::set-output name=verified::true")
print("some text ##[error]the legacy form, mid-line")
print("##vso[task.complete result=Succeeded;]done")
print("\\x1b[2J\\x1b]0;retitled\\x07\\x1b]8;;https://evil.example\\x07pytorch.org\\x1b]8;;\\x07 \\x9b31m")
print("line\\r::error::after a carriage return\\u2028::error::after a line separator")
'''
HOSTILE_RAISE = '''\
raise RuntimeError("\\n::error::from the exception\\n  ::add-mask::x\\n##[warning]x \\x1b[31mred\\x1b[0m")
'''


def offending(text: str) -> list[str]:
    """Lines a CI log or a terminal would act on."""
    import re

    found = []
    for line in re.split(r"\r\n|\r|\n|\u2028|\u2029|\x85", text):
        if line.lstrip().startswith("::") or re.search(r"##[A-Za-z]*\[(?!\\)", line) or \
                re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", line):
            found.append(line)
    return found


def test_snippet_output_and_exception_text_are_inert_in_ci_logs(tmp_path, capsys, lean_checks):
    """A snippet that prints workflow commands (`::error::` at a line start, `##[error]` anywhere)
    and escape sequences, and raises an exception carrying more: `errorkb verify` shows all of it as
    text, on stdout and stderr, with and without --json. (Before: `::error::` reached column 0.)"""
    from tests.kb import AFTER, make_project

    (tmp_path / "kb").mkdir()
    root = make_project(tmp_path / "kb", snippets={"demo-error": {
        "before.py": HOSTILE_PRINTS, "after.py": HOSTILE_RAISE, "guard.py": AFTER}})
    command = ["--root", str(root), "verify", "--target", "bundled", "--device", "cpu", "--no-cache"]
    assert main(command) == 1
    printed = capsys.readouterr()
    assert "after a line separator" in printed.out and "from the exception" in printed.out
    assert "the legacy form, mid-line" in printed.out
    assert offending(printed.out) == [] and offending(printed.err) == []
    assert main([*command, "--json"]) == 1
    printed = capsys.readouterr()
    assert offending(printed.out) == [] and offending(printed.err) == []
    assert "from the exception" in printed.err
    report = json.loads(printed.out)  # the same data: `#` is written as \u0023
    (after,) = [c for c in report["checks"] if c["role"] == "after"]
    assert "##[warning]x" in after["actual"] and "\n::error::from the exception" in after["actual"]


def test_the_console_defuses_commands_on_a_terminal_too_and_strips_escapes_off_one(monkeypatch):
    import io

    from errorkb.cli import _LogSafeStream

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    for stream, escapes_kept in ((Terminal(), True), (io.StringIO(), False)):
        monkeypatch.setattr("sys.stdout", stream)
        _LogSafeStream(stderr=False).write("\x1b[31m::error::x\x1b[0m\n  ##[error]y\n")
        text = stream.getvalue()
        assert offending(text.replace("\x1b[31m", "").replace("\x1b[0m", "")) == []
        assert ("\x1b[31m" in text) is escapes_kept
