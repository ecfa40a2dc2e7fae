"""The finalizer watch (round twenty-eight, `observer._p_fin_arm`), per check: what arming costs as each outermost
watched call starts (a walk of what the collector lists: in a forked check, what was made since the zygote froze its
own), beside the same check with the watch left out.

    .venv/bin/python benchmarks/observer_finalizers.py [--young 2000 20000] [--calls 1 100] [--repeat 5]

Each case runs a snippet under the observer as `tests/verify/test_observer.py` runs one (a fork of a lean parent that
froze what it imported, as a zygote does): it makes `young` objects the collector tracks (a check's set-up and
snippet: a cache, its tensors, a model's modules), one of them an object whose `__del__` is C code (armed, alive
throughout), then calls the watched function `calls` times (`lib.work`, one outermost call each). Printed: the
snippet's wall time in the observer with the watch and without it (the median of `repeat` runs), and their ratio.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import types
from pathlib import Path
from typing import Any

BODY = """
import functools
import time


class Thing:
    pass


class Planted:
    __del__ = functools.partial(print, end="")


junk = [Thing() for _ in range({young})]
kept = Planted()
started = time.perf_counter()
for _ in range({calls}):
    lib.work(1)
with open({out!r}, "w") as out:
    out.write(repr(time.perf_counter() - started))
"""


def _case(observer: Any, young: int, calls: int, watch: bool) -> float:
    """One snippet run (seconds the calls took, as the snippet timed them), the watch on or left out."""
    from tests.verify.test_observer import run_scenario

    saved = vars(observer)["_p_fin_arm"]
    if not watch:
        def _p_fin_arm() -> None:  # the watch left out: nothing armed
            return None

        observer._p_fin_arm = types.FunctionType(_p_fin_arm.__code__, vars(observer), "_p_fin_arm")
    try:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "took"
            run_scenario(Path(folder), BODY.format(young=young, calls=calls, out=str(out)))
            return float(out.read_text())
    finally:
        observer._p_fin_arm = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--young", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--calls", type=int, nargs="+", default=[1, 100])
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    from errorkb.verify.inside import observer
    from tests.verify import lean_parent

    lean_parent.SERVING = True  # run in this process's forks: the observer's functions patched here are the ones used
    import gc

    gc.freeze()  # what this process imported is frozen, as a zygote's is
    print(f"{'young':>7} {'calls':>6} {'with (ms)':>10} {'without (ms)':>13} {'ratio':>7} {'per call (ms)':>14}")
    for young in arguments.young:
        for calls in arguments.calls:
            runs = {watch: [_case(observer, young, calls, watch) for _ in range(arguments.repeat)]
                    for watch in (True, False)}
            with_ms = statistics.median(runs[True]) * 1000
            without_ms = statistics.median(runs[False]) * 1000
            print(f"{young:>7} {calls:>6} {with_ms:>10.2f} {without_ms:>13.2f} {with_ms / without_ms:>7.2f} "
                  f"{(with_ms - without_ms) / calls:>14.3f}")


if __name__ == "__main__":
    main()
