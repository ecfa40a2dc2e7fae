"""The containers of Python's own modules (`observer._python_tables`), per check: taken whole in each check as before,
beside taken once in the zygote (`observer.snapshot_tables`) with each check taking again only what may differ (issue 22).

    .venv/bin/python benchmarks/observer_tables.py [--n 40]

A process that imported what a CPU zygote of this knowledge base imports (torch, the bundled package, the verifier's
check modules) copies the namespaces (`child.snapshot_python`), then the containers, and freezes what it made, as a
zygote does; then it forks 2 N checks, the two ways alternating, each in a fresh fork (the copy-on-write faults of
touching the zygote's copies are the check's). In each: the namespaces' copy as `install` makes it (`_trusted_spaces`,
the same both ways: its cost is not the tables'), then the tables, timed alone: CPU (the fork's, `time.process_time`) and wall milliseconds, the median of N. The zygote's own cost of taking them once is said beside.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import time
from pathlib import Path


def _check(way: str, roots: tuple[tuple[str, ...], ...], trusted: tuple[str, ...]) -> tuple[float, float]:
    """In a fresh fork: (CPU ms, wall ms) of the tables step of `install`, `way` 'each check' or 'zygote once'."""
    from tests.verify.lean_parent import fork_and_return

    def check() -> tuple[float, float, int]:
        from errorkb.verify.inside import observer

        held = observer._trusted_spaces(trusted)[3]
        if way == "each check":
            held = dict(held, tables=None)  # as before: no zygote's copy, every container taken here

        def in_tables(path: object) -> bool:
            return observer._p_holds_tables(path, *roots)

        cpu, wall = time.process_time(), time.perf_counter()
        tables = observer._python_tables(in_tables, roots, held, trusted)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert tables
        return cpu * 1000, wall * 1000, len(tables)

    measured = fork_and_return(check)
    if measured is None:
        raise RuntimeError(f"the check's fork ({way}) died before it measured")
    cpu_ms, wall_ms, _ = measured
    return cpu_ms, wall_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    n = parser.parse_args().n
    import torch  # noqa: F401  # what a CPU zygote has imported

    import transformers_errorkb.kvcache  # noqa: F401
    from errorkb.verify.inside import child, library, observer
    from errorkb.verify.inside.spec import LibrarySpec

    stdlib, site = child.python_roots()
    target = library.target_roots("bundled", LibrarySpec("transformers", "transformers", "transformers_errorkb.kvcache"))
    roots = (tuple(stdlib), tuple(site), tuple(target))
    verifier = str(Path(observer.__file__).resolve().parents[2]) + "/"
    child.snapshot_python()
    started = time.perf_counter()
    observer.snapshot_tables(*roots)
    once = (time.perf_counter() - started) * 1000
    gc.freeze()
    times: dict[str, list[tuple[float, float]]] = {"each check": [], "zygote once": []}
    for _ in range(n):
        for way in times:
            times[way].append(_check(way, roots, (*stdlib, *site, *target, verifier)))
    load = os.getloadavg()[0]
    print(f"{'tables, per check':20} {'CPU ms (median)':>16} {'wall ms (median)':>17}")
    for way, measured in times.items():
        print(f"{way:20} {statistics.median(c for c, _ in measured):16.2f} {statistics.median(w for _, w in measured):17.2f}")
    before, after = (statistics.median(w for _, w in times[way]) for way in times)
    print(f"ratio (wall) {before / after:.1f}x; the zygote's one copy {once:.1f} ms; {n} checks each way, "
          f"load average {load:.1f}")


if __name__ == "__main__":
    main()
