"""A verify run stopped before its end (a CI job's time limit sends SIGTERM, a person presses Ctrl-C)
writes the verdicts of the checks that finished, says how many of how many, and keeps no verdict of a
check the stop ended. Seen on a GPU machine: `timeout` ended a 300 s CUDA run, and nothing was kept."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.verify.verifykb import copy_fixture

pytestmark = pytest.mark.verifier


def _cached(folder: Path) -> list[dict]:
    return [json.loads(path.read_text(encoding="utf-8")) for path in (folder / "verify").glob("*.json")]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_run_writes_what_finished(tmp_path, stop, lean_python):
    """(The run in the lean interpreter, tests/lean.py: the fixture's snippets need no hqq.)"""
    root = copy_fixture(tmp_path / "kb", ["good-head-dim", "after-hangs"], timeout=120)
    cache, report = tmp_path / "cache", tmp_path / "report.json"
    command = [str(lean_python), "-m", "errorkb.cli", "--root", str(root), "verify", "--target", "bundled",
               "--device", "cpu", "--jobs", "2", "--cache", "trusted", "--cache-dir", str(cache),
               "--report", str(report), "good-head-dim", "after-hangs"]
    # As from a terminal: a test runner's worker (xdist's) may ignore SIGINT, and a child inherits that
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"},
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 300
        # good-head-dim's three checks and after-hangs' before and guard end; its after hangs until stopped
        while len(_cached(cache)) < 5 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
        assert process.poll() is None, process.communicate()
        process.send_signal(stop)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:  # the run did not stop: leave nothing running
            process.kill()
            process.communicate()
    assert process.returncode == 130, out + err
    assert "errorkb verify: interrupted: 5 of 6 checks had finished" in err, err
    written = json.loads(report.read_text(encoding="utf-8"))
    ids = {check["id"] for check in written["checks"]}
    assert ids == {check["id"] for check in _cached(cache)}, "the report holds exactly the finished checks"
    assert "after-hangs::after[bundled-cpu]" not in ids and len(ids) == 5
    assert written["run"]["interrupted"] is True
