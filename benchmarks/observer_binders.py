"""A zygote's later copy (`child.snapshot_python`, after a module it prepared): every object walked for binders again,
beside only the objects made since the zygote's last freeze (`observer.freeze_walked`), side by side (issue 22).

    .venv/bin/python benchmarks/observer_binders.py [--n 20]

A process that imported what a CPU zygote of this knowledge base imports (torch, the bundled package) takes its first
copy and freezes as a zygote does (`zygote._freeze`); then it loads more (the modules a later check's module brings:
here a few of Python's own modules), and forks 2 N times, the two ways alternating, each in a fresh
fork. In each: the later copy, timed (CPU of the fork, `time.process_time`, and wall milliseconds; the median of N),
and the binders it knows after it. Both ways must know the same binders (the count is said beside): what the walk of
every object finds, the walk of what is new finds too, or the cheaper walk is not honest.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _later_copy(way: str) -> tuple[float, float, int]:
    """In a fresh fork: (CPU ms, wall ms, binders known) of the zygote's later copy, `way` 'every object' (as
    before: the frozen objects walked again) or 'made since the freeze'."""
    from tests.verify.lean_parent import fork_and_return

    def copy() -> tuple[float, float, int]:
        from errorkb.verify.inside import child, observer

        if way == "every object":
            observer._COPIES["walked_mark"] = None  # as before: no mark, every object walked
        cpu, wall = time.process_time(), time.perf_counter()
        child.snapshot_python()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return cpu * 1000, wall * 1000, len(observer._COPIES["binders"])

    measured = fork_and_return(copy)
    if measured is None:
        raise RuntimeError(f"the fork ({way}) died before it measured")
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    n = parser.parse_args().n
    import torch  # noqa: F401  # what a CPU zygote has imported

    import transformers_errorkb.kvcache  # noqa: F401
    from errorkb.verify.inside import child, observer

    started = time.perf_counter()
    child.snapshot_python()  # the zygote's first copy: every object walked
    first = (time.perf_counter() - started) * 1000
    observer.freeze_walked()
    import decimal  # noqa: F401  # what a later module brings
    import email.mime.text  # noqa: F401
    import xml.dom.minidom  # noqa: F401

    times: dict[str, list[tuple[float, float, int]]] = {"every object": [], "made since the freeze": []}
    for _ in range(n):
        for way in times:
            times[way].append(_later_copy(way))
    load = os.getloadavg()[0]
    print(f"{'later copy':22} {'CPU ms (median)':>16} {'wall ms (median)':>17} {'binders known':>14}")
    for way, samples in times.items():
        known = sorted({sample[2] for sample in samples})
        print(f"{way:22} {statistics.median(s[0] for s in samples):16.1f} "
              f"{statistics.median(s[1] for s in samples):17.1f} {', '.join(map(str, known)):>14}")
    ratio = statistics.median(s[0] for s in times["every object"]) / \
        statistics.median(s[0] for s in times["made since the freeze"])
    print(f"ratio (CPU, every object / made since): {ratio:.1f}x; the zygote's first copy took {first:.0f} ms wall; "
          f"{gc_frozen()} objects frozen; load {load:.1f}, n={n}")


def gc_frozen() -> int:
    import gc

    return gc.get_freeze_count()


if __name__ == "__main__":
    main()
