"""When the full tier's last worker ends, for two queue orders, replayed from a run's CPU log.

    .venv/bin/python benchmarks/schedule_replay.py LOG [--workers 3]

LOG is what `ERRORKB_CPU_LOG=LOG bash scripts/test.sh` wrote (one line per test: its xdist group after
the `@`, its wall-clock seconds, its worker). The replay runs each group's tests, with the walls they
took, through pytest-xdist's `--dist loadgroup` rule: each worker starts with one group, and takes the
next group in the queue whenever two or fewer of its tests are left (`LoadScopeScheduling._reschedule`).
Side by side, the end of each worker:

- before: the expensive groups first (tests/conftest.py: `EXPENSIVE_GROUPS`), then every module in
  collection order (by path), as the queue was before `LONG_MODULES`;
- now: tests/conftest.py's `_group_order` (the expensive groups, then `LONG_MODULES` longest first, then
  the rest by path).

The walls are the logged run's, so a worker that ends alone (with the machine half idle) is counted as
slow as it was beside the others: the gain in a real run is up to the difference shown.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import OrderedDict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.conftest import EXPENSIVE_GROUPS, _group_order


def groups_of(log: Path) -> OrderedDict[str, list[float]]:
    """group → the walls of its tests, in the order they ran."""
    groups: OrderedDict[str, list[float]] = OrderedDict()
    for line in log.read_text(encoding="utf-8").splitlines():
        if line.strip() and "test" in (record := json.loads(line)) and "wall" in record:
            groups.setdefault(record["test"].rsplit("@", 1)[-1], []).append(record["wall"])
    return groups


def replay(queue: list[str], groups: OrderedDict[str, list[float]], workers: int) -> list[float]:
    """The time each worker ends, under xdist's loadgroup rule."""
    waiting = list(queue)
    pending: list[list[float]] = [[] for _ in range(workers)]
    clock = [0.0] * workers
    for worker in range(workers):
        if waiting:
            pending[worker] += groups[waiting.pop(0)]
    for worker in range(workers):
        if waiting and len(pending[worker]) <= 2:
            pending[worker] += groups[waiting.pop(0)]
    while any(pending):
        worker = min((w for w in range(workers) if pending[w]), key=lambda w: clock[w] + pending[w][0])
        clock[worker] += pending[worker].pop(0)
        if waiting and len(pending[worker]) <= 2:
            pending[worker] += groups[waiting.pop(0)]
    return clock


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("log", type=Path)
    parser.add_argument("--workers", type=int, default=3)
    args = parser.parse_args()
    groups = groups_of(args.log)
    expensive = list(dict.fromkeys(name for _, name in EXPENSIVE_GROUPS))
    before = [name for name in expensive if name in groups] + sorted(name for name in groups if name not in expensive)
    now = sorted(groups, key=lambda name: (_group_order(name), name if name not in expensive else ""))
    print(f"{args.log}: {len(groups)} groups, {sum(map(sum, groups.values())):.0f} s of tests' wall clock, "
          f"{args.workers} workers")
    ends = {}
    for label, queue in (("before (expensive groups, then by path)", before),
                         ("now (expensive, LONG_MODULES, then by path)", now)):
        ends[label] = replay(queue, groups, args.workers)
        print(f"  {label:46} workers end at {', '.join(f'{end:.0f}' for end in ends[label])} s: "
              f"the last at {max(ends[label]):.0f} s")
    first, second = (max(end) for end in ends.values())
    print(f"  the last worker ends {first - second:.0f} s sooner ({first / second:.3f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
