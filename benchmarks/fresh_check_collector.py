"""What freezing the loaded runtime before the snippet saves (`child._uncollected(freeze=True)`), one errorkb beside another.

    .venv/bin/python benchmarks/fresh_check_collector.py --tree /path/to/other/checkout [--n 2] [--isolation subprocess] IDS...

A check's process imports the runtime and the target with the cyclic collector off, then turned it on again with
every object of that import (about half a million) in the collector's youngest generation: the observer's copies
before the snippet (the trusted namespaces, every class, every binder, the runtime's kernel tables) and the snippet's
own allocations then set off collections that walked them all again, generation after generation, in every fresh
check (`--isolation subprocess`) and in every zygote before it froze. Frozen first (`gc.freeze`, as a zygote's
forked checks already find them), no collection walks them.

The entries `IDS` of this checkout's knowledge base are verified, bundled, cpu, no verdict cache, sandbox off (a
worktree's sandbox does not show the bundled package's editable install), by the errorkb of `--tree` (say, a
`git worktree add` of main) and by this checkout's, alternately, N rounds each: the CPU seconds of every process the
run started (a cpuacct cgroup), median of N, side by side with their ratio, and whether both gave every check the
same outcome and code.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter

ONE_RUN = """
import json, sys
from pathlib import Path
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify.engine import verify

root, isolation, out, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
project = load_project(Path(root))
report = verify(project, load_project_entries(project).entries, ids=ids, targets=["bundled"], devices=["cpu"],
                isolation=isolation, sandbox="off", jobs=1)
json.dump({c.id: [str(c.outcome), str(c.code)] for c in report.checks}, open(out, "w"))
"""


def once(tree: Path, isolation: str, ids: list[str], meter: Meter) -> tuple[float, dict[str, list[str]]]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.json"
        env = {**os.environ, "PYTHONPATH": str(tree)}
        before = meter.seconds()
        done = subprocess.run([sys.executable, "-c", ONE_RUN, str(ROOT), isolation, str(out), *ids], env=env,
                              cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the run with {tree}'s errorkb failed:\n{done.stderr[-3000:]}")
        return meter.seconds() - before, json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, required=True, help="the other errorkb checkout (the baseline)")
    parser.add_argument("--n", type=int, default=2)
    parser.add_argument("--isolation", default="subprocess", choices=("subprocess", "fork"))
    parser.add_argument("ids", nargs="+")
    args = parser.parse_args()
    meter = Meter()
    trees = {"baseline": args.tree.resolve(), "this": ROOT}
    totals: dict[str, list[float]] = {label: [] for label in trees}
    verdicts: dict[str, dict[str, list[str]]] = {}
    try:
        for _ in range(args.n):
            for label, tree in trees.items():
                total, verdicts[label] = once(tree, args.isolation, args.ids, meter)
                totals[label].append(total)
    finally:
        meter.close()
    checks = len(verdicts["this"])
    old, new = (statistics.median(totals[label]) for label in trees)
    print(f"CPU seconds, median of {args.n}, --isolation {args.isolation}, sandbox off, {checks} checks; "
          f"baseline {trees['baseline']}, this {ROOT}" + ("" if meter.file else " (RUSAGE_CHILDREN)"))
    print(f"  {'':34} {'baseline':>9} {'this':>9} {'ratio':>6}")
    print(f"  {'every process of the run':34} {old:9.2f} {new:9.2f} {old / new:6.2f}")
    print(f"  {'per check':34} {old / checks:9.3f} {new / checks:9.3f}")
    same = verdicts["baseline"] == verdicts["this"]
    print(f"  the same outcome and code for all {checks} checks: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
