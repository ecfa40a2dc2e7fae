"""What the adversarial module's probe tests cost (the tests that check the probes themselves, no attack run), run by
one checkout beside another: `pytest -n 0 tests/verify/test_adversarial.py -k "not fork and not subprocess"`.

    .venv/bin/python benchmarks/adversarial_probes.py --tree /path/to/other/checkout [--n 2]

Each round runs the selection in `--tree` (say, a `git worktree add --detach` of main, its `.venv` linked) and in this
checkout, one after the other, and prints the CPU seconds (user + system) of everything each started (a cpuacct
cgroup where one can be joined, else `RUSAGE_CHILDREN`), the median of N and the ratio. A round whose tests did not
all pass stops the benchmark: its figure would mean nothing.

Each probe that asked for the `workspace` fixture made a run environment of its own (`run_environment`: this
environment hard-linked, less hqq and the project's tools), 3-6 s of CPU apiece, though none runs an attack; two
asked for a workspace they did not use (the process probe) or needed only its listener.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter

SELECTION = ["tests/verify/test_adversarial.py", "-k", "not fork and not subprocess"]


def one(meter: Meter, tree: Path) -> float:
    started = meter.seconds()
    done = subprocess.run([str(tree / ".venv" / "bin" / "python"), "-m", "pytest", "-p", "no:cacheprovider", "-q",
                           "-n", "0", *SELECTION], cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the probes did not pass (exit {done.returncode}):\n{done.stdout[-2000:]}")
    return meter.seconds() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True, help="the other checkout (before)")
    parser.add_argument("--n", type=int, default=2)
    args = parser.parse_args()
    meter = Meter()
    figures: dict[str, list[float]] = {"before": [], "after": []}
    try:
        for _ in range(args.n):
            figures["before"].append(one(meter, args.tree.resolve()))
            figures["after"].append(one(meter, ROOT))
    finally:
        meter.close()
    before, after = statistics.median(figures["before"]), statistics.median(figures["after"])
    how = "a cpuacct cgroup" if meter.file else "RUSAGE_CHILDREN"
    print(f"the adversarial probes ({' '.join(SELECTION)}), CPU seconds of everything started ({how}), median of "
          f"{args.n}:")
    print(f"  before ({args.tree}): {before:7.2f} s  {figures['before']}")
    print(f"  after  ({ROOT}): {after:7.2f} s  {figures['after']}  {after / before:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
