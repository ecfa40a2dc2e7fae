"""The benchmarks still measure what they name: a stage a refactor renamed or moved must fail here, not
leave a benchmark that breaks when someone finally runs it (verify_profile.py wrapped two names the
engine no longer had)."""

from __future__ import annotations

import subprocess
import sys

from tests.kb import ROOT


def test_every_stage_verify_profile_times_exists():
    code = ("import sys; sys.path.insert(0, 'benchmarks'); import verify_profile; verify_profile.instrument(); "
            "print('instrumented')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "instrumented" in done.stdout, done.stderr[-2000:]
