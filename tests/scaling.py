"""Bounded work, measured as the machine allows: side by side, never against a wall-clock limit.

A hostile input must cost time linear in its size at worst. On a shared, busy machine a fixed limit
("under 2 s") fails for the machine's reasons; a ratio of two sizes measured in the same run does not:
four times the input in well under sixteen times the time (what a quadratic step would take). The time
is the CPU time of the thread that does the work (`time.thread_time`), not the wall clock's: a wall clock
counts the time the scheduler gave other processes, and a busy machine's preemption of the larger run read
as a quadratic step (a matrix summary, "10.6x", failed a helper's run at load 6.5). Every `run` measured
here works in this thread (no subprocess, no worker thread).
"""

from __future__ import annotations

import time
from collections.abc import Callable

FACTOR, BOUND = 4, 10  # linear: about 4x the time; quadratic: about 16x
# Below this the larger input's time is the timer's and the scheduler's, not the code's (0.1 ms against 1.2 ms
# read as "10.6x" in a CI run): a step quadratic in the larger input cannot finish in it, so it passes.
RESOLUTION = 0.005


def best_of_three(run: Callable[[int], object], size: int) -> float:
    times = []
    for _ in range(3):
        started = time.thread_time()
        run(size)
        times.append(time.thread_time() - started)
    return min(times)


def assert_linear(run: Callable[[int], object], size: int) -> None:
    """`run(n)` handles an input of size n (and asserts its own answer); `size` the smaller one."""
    small, large = best_of_three(run, size), best_of_three(run, size * FACTOR)
    assert large < BOUND * small or large < RESOLUTION, \
        f"{FACTOR}x the input took {large / small:.1f}x the time ({small:.4f} s, {large:.4f} s)"
