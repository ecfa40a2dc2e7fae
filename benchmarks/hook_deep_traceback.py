"""What does the explainer spend reading a deep traceback (a recursion that ends in an error)?

The explainer reads an exception as Python prints it (`errorkb.hook.explain.text_of`), within its deadline
(`DEADLINE_S`): past it, the block is dropped and the exit was delayed by the whole deadline. The traceback module
formats every frame (its source line, its carets) before dropping those it folds into "[Previous line repeated N more
times]"; the explainer now formats only those Python prints. Side by side, per depth: the traceback module's own
formatting of the same exception (what the explainer did until round six) and the explainer's reading now, the
fastest of a few runs each, and their ratio.

    .venv/bin/python benchmarks/hook_deep_traceback.py [--depths 1000 10000 50000] [--runs 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from collections.abc import Callable


def deep_error(depth: int) -> ValueError:
    def down(n: int) -> int:
        if n:
            return down(n - 1)
        raise ValueError("the bottom")

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth + 1000)
    try:
        down(depth)
    except ValueError as error:
        return error
    finally:
        sys.setrecursionlimit(limit)
    raise AssertionError("no error")


def fastest(runs: int, read: Callable[[], object]) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        read()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depths", type=int, nargs="+", default=[1000, 10_000, 50_000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    from errorkb.hook.explain import DEADLINE_S, text_of

    print(f"reading a recursion's traceback, fastest of {args.runs}; s (the explainer's deadline: {DEADLINE_S:g} s)")
    print(f"  {'depth':>8} {'every frame':>12} {'now':>8} {'ratio':>7}")
    for depth in args.depths:
        error = deep_error(depth)
        assert text_of(error) == "".join(traceback.format_exception(error))
        every = fastest(args.runs, lambda error=error: "".join(traceback.format_exception(error)))
        now = fastest(args.runs, lambda error=error: text_of(error))
        print(f"  {depth:>8} {every:12.3f} {now:8.3f} {now / every:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
