"""Any selection of tests, run by another checkout beside this one, alternately, in one run: what a change to the tests
(or to what they use) costs or saves, with the same load on both.

    .venv/bin/python benchmarks/pytest_side_by_side.py --tree /path/to/other/checkout [--n 2] -- SELECTION...

    e.g. the live tests' builds from scratch (`tests/site/test_live.py: scratch_tree`):
    .venv/bin/python benchmarks/pytest_side_by_side.py --tree /tmp/main -- tests/site/test_live.py \
        tests/site/test_live_round17.py tests/site/test_live_round19.py

`--tree`: say, a `git worktree add --detach /tmp/main main`, its `.venv` linked. Each round runs
`pytest -p no:cacheprovider -q -n 0 SELECTION` in both checkouts, which goes first alternating, and prints the CPU
seconds (user + system) of everything each started (a cpuacct cgroup where one can be joined, else
`RUSAGE_CHILDREN`), the wall seconds and the load average as it started; then the medians of N and the ratio. A run
whose tests did not all pass, or whose pass/skip counts differ from the other checkout's, stops the benchmark: its
figure would mean nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter


def one(meter: Meter, tree: Path, selection: list[str]) -> tuple[float, float, str]:
    """(CPU s, wall s, pytest's summary line) of the selection run in `tree`."""
    started, wall = meter.seconds(), time.perf_counter()
    done = subprocess.run([str(tree / ".venv" / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "-n", "0", *selection], cwd=tree, capture_output=True, text=True)
    spent, wall = meter.seconds() - started, time.perf_counter() - wall
    summary = (done.stdout.strip().splitlines() or [""])[-1]
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the selection did not pass (exit {done.returncode}):\n{done.stdout[-3000:]}")
    return spent, wall, re.sub(r" in [\d.]+s.*", "", summary)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True, help="the other checkout (before)")
    parser.add_argument("--n", type=int, default=2)
    parser.add_argument("selection", nargs="+", help="pytest's arguments: files, -k, ...")
    args = parser.parse_args()
    trees = {"before": args.tree.resolve(), "after": ROOT}
    figures: dict[str, list[float]] = {way: [] for way in trees}
    walls: dict[str, list[float]] = {way: [] for way in trees}
    summaries: dict[str, set[str]] = {way: set() for way in trees}
    meter = Meter()
    try:
        for round_ in range(args.n):
            for way in list(trees)[::-1 if round_ % 2 else 1]:
                load = os.getloadavg()[0]
                cpu, wall, summary = one(meter, trees[way], args.selection)
                figures[way].append(cpu)
                walls[way].append(wall)
                summaries[way].add(summary)
                print(f"  round {round_ + 1} {way:6} {cpu:7.2f} s CPU {wall:7.1f} s wall  load {load:4.1f}  {summary}",
                      flush=True)
    finally:
        meter.close()
    if summaries["before"] != summaries["after"]:
        raise SystemExit(f"the checkouts ran different tests: {summaries}")
    before, after = statistics.median(figures["before"]), statistics.median(figures["after"])
    how = "a cpuacct cgroup" if meter.file else "RUSAGE_CHILDREN"
    print(f"pytest -n 0 {' '.join(args.selection)}: CPU seconds of everything started ({how}), median of {args.n}:")
    print(f"  before ({trees['before']}): {before:7.2f} s CPU, {statistics.median(walls['before']):7.1f} s wall")
    print(f"  after  ({trees['after']}): {after:7.2f} s CPU, {statistics.median(walls['after']):7.1f} s wall  "
          f"after / before = {after / before:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
