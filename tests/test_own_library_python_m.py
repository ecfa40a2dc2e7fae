"""`python -m errorkb` is the `errorkb` command: a newcomer whose environment's scripts folder is not on PATH
(a virtual environment used without activating it) typed it, as docs/own-library.md now says, and was told
`No module named errorkb.__main__`. The same words and the same exit codes as `errorkb` itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from errorkb.cli import main
from tests.kb import ROOT

FIXTURE = ROOT / "tests" / "fixtures" / "tinylib_kb"


def _python_m(*args: str) -> subprocess.CompletedProcess[str]:
    """The module run as a user runs it: from the checkout's folder, with no PYTHONPATH of the test's."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run([sys.executable, "-m", "errorkb", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("args", [["check"], ["check", "--no-such-flag"], ["show", "no-such-entry"],
                                  ["lookup", "OverflowError: queue is full: capacity 3"]])
def test_python_m_errorkb_is_the_errorkb_command(tmp_path, capsys, args):
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    ran = _python_m("--root", str(root), *args)
    expected = main(["--root", str(root), *args])
    assert ran.returncode == expected, (ran.returncode, expected, ran.stdout, ran.stderr)
    assert "Traceback" not in ran.stderr and "__main__" not in ran.stderr, ran.stderr
    if args == ["check"]:
        assert "2 entries OK" in ran.stdout, ran.stdout


def test_python_m_errorkb_names_itself_errorkb():
    ran = _python_m("--help")
    assert ran.returncode == 0 and ran.stdout.startswith("usage: errorkb "), ran.stdout[:200]

