"""Sums and sorts the CPU log a test run wrote (ERRORKB_CPU_LOG, tests/conftest.py):
`python -m tests.cpu_log PATH [N]` prints the total, start-up and collection per process, the N
tests that took the most CPU (set-up of the session fixtures they were first to need included)
and the modules that did, then the wall-clock time each worker spent in tests, the N xdist groups (an
expensive fixture's, or a module) and the N tests that took the longest (what a faster suite must shorten:
waits are not CPU). Where the test process could make a cpuacct cgroup of its own (root, cgroup v1: the
log's `"counted": "cgroup"`), every process it started
counts, sandboxed ones included, in the test that ran it; elsewhere (`"rusage"`) the CPU inside the
sandbox's PID namespace is not counted, and a process counts where it is reaped.

`python -m tests.cpu_log NEW N --against OLD` compares two runs' logs instead: what grew because the machine was
slower (the median ratio of the tests both ran, overall and per folder: tests that share no code grow alike) and
what grew beyond it (the N tests whose CPU grew most above that median), which is where a change cost something."""

from __future__ import annotations

import collections
import json
import statistics
import sys
from pathlib import Path


def _lines(path: str) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def compare(new: str, old: str, top: int = 30) -> None:
    """Two runs' logs side by side: the machine's drift (median ratio new / old of the tests both ran, each over
    0.5 s of CPU in the old run), per folder, and the tests that grew most beyond it."""
    before = {line["test"]: line["cpu"] for line in _lines(old) if "test" in line}
    after = {line["test"]: line["cpu"] for line in _lines(new) if "test" in line}
    both = [test for test in before if test in after and before[test] > 0.5]
    if not both:
        print("no test over 0.5 s of CPU in both logs")
        return
    drift = statistics.median(after[test] / before[test] for test in both)
    print(f"{len(both)} tests over 0.5 s in both: {sum(before[t] for t in both):.1f} s CPU then, "
          f"{sum(after[t] for t in both):.1f} s now; median ratio {drift:.3f} (the machine, and what changed)")
    folders: dict[str, list[str]] = collections.defaultdict(list)
    for test in both:
        folders[test.split("::")[0].rsplit("/", 1)[0]].append(test)
    for folder, tests in sorted(folders.items()):
        ratio = statistics.median(after[t] / before[t] for t in tests)
        print(f"  {folder:20} {len(tests):4} tests  {sum(before[t] for t in tests):8.1f} s -> "
              f"{sum(after[t] for t in tests):8.1f} s  median ratio {ratio:.3f}")
    added = [test for test in after if test not in before]
    print(f"tests only in the new log: {len(added)}, {sum(after[t] for t in added):.1f} s CPU")
    print(f"\nthe {top} tests that grew most beyond the median ratio (old s, new s, new - {drift:.3f} x old):")
    for test in sorted(both, key=lambda t: -(after[t] - drift * before[t]))[:top]:
        print(f"  {before[test]:8.2f} {after[test]:8.2f} {after[test] - drift * before[test]:+8.2f}  {test}")


def main(path: str, top: int = 40) -> None:
    lines = _lines(path)
    tests = [line for line in lines if "test" in line]
    starts = [line for line in lines if "collection" in line]
    total = sum(line["cpu"] for line in tests)
    collection = sum(line["collection"] for line in starts)
    print(f"{len(tests)} tests: {total:.1f} s CPU in tests, {collection:.1f} s in start-up and collection "
          f"({len(starts)} processes), {total + collection:.1f} s in all")
    for worker in sorted({line["worker"] for line in tests}):
        spent = sum(line["cpu"] for line in tests if line["worker"] == worker)
        print(f"  {worker}: {spent:.1f} s")
    print(f"\nthe {top} tests that took the most CPU:")
    for line in sorted(tests, key=lambda line: -line["cpu"])[:top]:
        print(f"  {line['cpu']:8.2f} s  {line['worker']:5}  {line['test']}")
    modules: collections.Counter[str] = collections.Counter()
    for line in tests:
        modules[line["test"].split("::")[0]] += line["cpu"]
    print(f"\nthe {top} modules that took the most CPU:")
    for module, cpu in modules.most_common(top):
        print(f"  {cpu:8.2f} s  {module}")
    timed = [line for line in tests if "wall" in line]  # logs written before the wall clock was logged lack it
    if not timed:
        return
    print("\nwall-clock time in tests, per worker:")
    for worker in sorted({line["worker"] for line in timed}):
        print(f"  {worker}: {sum(line['wall'] for line in timed if line['worker'] == worker):.1f} s")
    walls: collections.Counter[str] = collections.Counter()
    for line in timed:
        walls[line["test"].rsplit("@", 1)[-1]] += line["wall"]
    print(f"\nthe {top} groups that took the longest (wall clock; tests/conftest.py queues the expensive groups "
          "first, then LONG_MODULES, longest first):")
    for group, wall in walls.most_common(top):
        print(f"  {wall:8.1f} s  {group}")
    print(f"\nthe {top} tests that took the longest (wall clock):")
    for line in sorted(timed, key=lambda line: -line["wall"])[:top]:
        print(f"  {line['wall']:8.2f} s  {line['cpu']:8.2f} s CPU  {line['worker']:5}  {line['test']}")


if __name__ == "__main__":
    if "--against" in sys.argv:
        at = sys.argv.index("--against")
        compare(sys.argv[1], sys.argv[at + 1], *(int(arg) for arg in sys.argv[2:at][:1]))
    else:
        main(sys.argv[1], *(int(arg) for arg in sys.argv[2:3]))
