"""Time limits measure the check, not the machine (issue 20, item 7).

A check's limit is CPU time (`timeout` in the project), with a generous wall-clock backstop for a
check that waits rather than works: a busy machine slows an honest check down, it does not make it
use more CPU, so it never turns it into a failure. Here the hqq entry, whose bundled checks import
hqq inside the check (seconds of CPU), verifies with four processes spinning beside it on every
core this machine has to share.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify.engine import verify
from errorkb.verify.run import Limits
from tests.kb import copy_kb

SPINNER = "while True:\n    pass\n"


def test_the_backstop_is_far_above_the_cpu_limit():
    assert Limits.of(60) == Limits(60.0, 300.0)
    assert Limits.of(2).wall_s == 32.0


def test_a_backstop_given_is_the_one_used_and_must_be_positive():
    """Tests of the kill path give a short backstop instead of waiting 30 s for the generous one."""
    assert Limits.of(2, 8) == Limits(2.0, 8.0)
    for cpu, wall in ((2, 0), (2, -1), (0, 8)):
        with pytest.raises(ValueError, match="a check's time limits must be positive"):
            Limits.of(cpu, wall)


@pytest.mark.skipif(importlib.util.find_spec("hqq") is None, reason="needs hqq installed")
def test_hqq_nbits_invalid_verifies_with_four_cpu_spinning_processes_beside_it(tmp_path):
    root = copy_kb(tmp_path / "kb", ["hqq-nbits-invalid"])
    project = load_project(root)
    loaded = load_project_entries(project)
    assert loaded.problems == []
    spinners = [subprocess.Popen([sys.executable, "-c", SPINNER]) for _ in range(4)]
    try:
        report = verify(project, loaded.entries, targets=["bundled", "upstream"], devices=["cpu"], jobs=2)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    failed = [f"{record.id}: {record.reason}" for record in report.checks if record.outcome != "pass"]
    assert failed == [] and len(report.checks) == 6, failed
    assert os.cpu_count()  # (the spinners shared every core the checks had)
