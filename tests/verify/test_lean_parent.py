"""The lean parent the observer's scenarios fork from (tests/verify/lean_parent.py): a call runs there, what it is
given arrives as the test wrote it, and an interrupted call never hands its answer to the next one."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from tests.verify import lean_parent

MADE_AT_IMPORT = map(int, ["1"])  # a module's global that does not pickle by value alike: it travels by its name


def _where(given):
    """Runs in the lean parent: its pid, whether torch is loaded there, and what `given` became."""
    return os.getpid(), "torch" in sys.modules, given() if callable(given) else given


def _is_the_modules_own(value) -> bool:
    return value is MADE_AT_IMPORT


def _sleep_then(seconds: float, answer: str) -> str:
    time.sleep(seconds)
    return answer


def test_a_call_runs_in_the_lean_parent_with_closures_and_globals_as_written():
    captured = {"n": 3}

    def closure():
        return captured["n"] + len(MADE_AT_IMPORT.__class__.__name__)

    pid, torch_loaded, result = lean_parent.call(_where, closure)
    assert pid != os.getpid()
    assert torch_loaded is False  # only what the cases import: none of the worker's heap
    assert result == 3 + len("map")
    assert lean_parent.call(_is_the_modules_own, MADE_AT_IMPORT) is True
    assert lean_parent.call(_where, lambda: _where.__code__.co_qualname)[2] == "_where"


def test_an_error_in_the_parent_is_raised_here_with_its_traceback():
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        lean_parent.call(divmod, 1, 0)


def test_an_interrupted_call_never_answers_the_next_one():
    def interrupt(*_):
        raise TimeoutError("the test's time ran out")

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with pytest.raises(TimeoutError):
            lean_parent.call(_sleep_then, 2.0, "the first call's answer")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert lean_parent.call(_sleep_then, 0, "the second call's answer") == "the second call's answer"
