"""`pytest --errorkb`: every check a test item; opt-in; failures explained; not run → skipped."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.verify.verifykb import copy_fixture


def pytest_run(folder, *args: str, python=sys.executable) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=folder,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    return copy_fixture(tmp_path_factory.mktemp("plugin") / "kb", ["good-head-dim", "guard-lets-error-through"])


def test_checks_are_items_with_readable_ids(kb, lean_python):
    """(pytest in the lean interpreter, tests/lean.py: its zygotes need no hqq; so in the next tests.)"""
    run = pytest_run(kb, "--errorkb", "--errorkb-target", "bundled", "--errorkb-no-cache", "-rA",
                     "--errorkb-report", "report.json", python=lean_python)
    text = run.stdout
    assert run.returncode == 1, text
    assert re.search(r"\b1 failed, 5 passed, 6 skipped\b", text), text[-500:]
    assert "PASSED docs/errors/transformers/good-head-dim.yml::good-head-dim::before[bundled-cpu]" in text
    assert "FAILED docs/errors/transformers/guard-lets-error-through.yml::guard-lets-error-through::guard[bundled-cpu]" in text
    assert "let the documented ValueError through from Cache.early_initialization" in text
    assert "snippets/guard-lets-error-through/guard.py" in text
    assert "not run: no cuda device" in text
    report = json.loads((kb / "report.json").read_text())
    assert len(report["checks"]) == 12


def test_without_the_flag_nothing_is_collected(kb):
    run = pytest_run(kb, "docs/errors")
    assert run.returncode == 5 and "no tests ran" in run.stdout, run.stdout


def test_a_differing_message_is_marked_where_it_first_differs(tmp_path, lean_python):
    kb = copy_fixture(tmp_path / "kb", ["before-wrong-message"])
    run = pytest_run(kb, "--errorkb", "--errorkb-target", "bundled", "--errorkb-device", "cpu", "--errorkb-no-cache",
                     "-k", "before", python=lean_python)
    lines = run.stdout.splitlines()
    actual = next(i for i, line in enumerate(lines) if "actual:   `head_dim` was provided" in line)
    assert lines[actual + 1].strip() == "^ first difference (character 12: 'w')", run.stdout[-2000:]
    assert lines[actual + 1].index("^") == lines[actual].index("`head_dim` was") + 11
