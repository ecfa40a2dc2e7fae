"""The finalizer watch (round twenty-eight, `observer._p_fin_arm`), per check: what arming costs as each outermost
watched call starts, walking what was made since the last arming (round thirty-one, `_p_fin_young`: the collector's
young generations) beside walking all the collector lists each time (`whole`: round twenty-eight's walk; in a forked
check, what was made since the zygote froze its own), and beside the same check with the watch left out.

    .venv/bin/python benchmarks/observer_finalizers.py [--young 2000 20000 1000000] [--calls 1 100 1000] [--repeat 3]

Each case runs a snippet under the observer as `tests/verify/test_observer.py` runs one (a fork of a lean parent that
froze what it imported, as a zygote does): it makes `young` objects the collector tracks (a check's set-up and
snippet: a cache, its tensors, a model's modules), one of them an object whose `__del__` is C code (armed, alive
throughout), then calls the watched function `calls` times (`lib.work`, one outermost call each). Printed: the
snippet's wall time in the observer with the young walk, with the whole walk, and without the watch (the median of
`repeat` runs), the ratios whole / young and young / without, and what each arming costs (young, whole). The
first arming walks all in both (what the snippet made before it); a whole walk of more than `--whole-calls` calls is
counted from that many, per call (marked ~: a million objects walked a thousand times is a quarter of an hour).
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


def _case(observer: Any, young: int, calls: int, how: str) -> float:
    """One snippet run (seconds the calls took, as the snippet timed them): `how` is "young" (as shipped), "whole"
    (every arming walks all the collector lists, as round twenty-eight did) or "without" (nothing armed)."""
    from tests.verify.test_observer import run_scenario

    saved = {name: vars(observer)[name] for name in ("_p_fin_arm", "_p_fin_young")}
    if how == "without":
        def _p_fin_arm() -> None:  # the watch left out: nothing armed
            return None

        observer._p_fin_arm = types.FunctionType(_p_fin_arm.__code__, vars(observer), "_p_fin_arm")
    elif how == "whole":
        def _p_fin_young(fin: Any) -> Any:  # every arming walks all the collector lists
            fin["stale"] = True
            return _c_get_objects(), True  # noqa: F821  # the private namespace's, where it runs

        observer._p_fin_young = types.FunctionType(_p_fin_young.__code__, vars(observer), "_p_fin_young")
    try:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "took"
            run_scenario(Path(folder), BODY.format(young=young, calls=calls, out=str(out)))
            return float(out.read_text())
    finally:
        for name, function in saved.items():
            setattr(observer, name, function)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--young", type=int, nargs="+", default=[2000, 20000, 1000000])
    parser.add_argument("--calls", type=int, nargs="+", default=[1, 100, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--whole-calls", type=int, default=100,
                        help="at most so many calls walk all (a whole walk of a million objects takes most of a "
                             "second): more are counted from these, per call, and marked ~")
    arguments = parser.parse_args()
    from errorkb.verify.inside import observer
    from tests.verify import lean_parent

    lean_parent.SERVING = True  # run in this process's forks: the observer's functions patched here are the ones used
    import gc

    gc.freeze()  # what this process imported is frozen, as a zygote's is
    print(f"{'young':>8} {'calls':>6} {'young (ms)':>11} {'whole (ms)':>11} {'without (ms)':>13} {'whole/young':>12} "
          f"{'young/without':>14} {'arm young (ms)':>15} {'arm whole (ms)':>15}")
    for young in arguments.young:
        for calls in arguments.calls:
            ms = {how: statistics.median([_case(observer, young, calls, how) for _ in range(arguments.repeat)]) * 1000
                  for how in ("young", "without")}
            walked = min(calls, arguments.whole_calls)
            whole = statistics.median([_case(observer, young, walked, "whole") for _ in range(arguments.repeat)])
            ms["whole"] = whole * 1000 * calls / walked
            mark = "~" if walked < calls else " "
            print(f"{young:>8} {calls:>6} {ms['young']:>11.2f} {mark}{ms['whole']:>10.2f} {ms['without']:>13.2f} "
                  f"{ms['whole'] / ms['young']:>12.2f} {ms['young'] / ms['without']:>14.2f} "
                  f"{(ms['young'] - ms['without']) / calls:>15.3f} {(ms['whole'] - ms['without']) / calls:>15.3f}")


if __name__ == "__main__":
    main()
