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


def test_what_observer_exceptions_puts_back_still_exists():
    """benchmarks/observer_exceptions.py's "as before" replaces observer functions by name: a renamed one would leave
    both ways the same code, and the ratio would measure nothing."""
    import inspect

    from benchmarks.observer_exceptions import AS_BEFORE
    from errorkb.verify.inside import observer

    for name, replacement in AS_BEFORE.items():
        assert callable(getattr(observer, name, None)), name
        assert list(inspect.signature(replacement).parameters) == list(inspect.signature(getattr(observer, name))
                                                                       .parameters), name
