"""What each entry's checks cost, verified by one errorkb beside another: `verify --no-cache IDS`, side by side.

    .venv/bin/python benchmarks/verify_entries.py --tree /path/to/other/checkout [--n 2] [--sandbox off] IDS...

The knowledge base of this checkout (entries, snippets, `.errorkb-cache/matrix` for the releases they pin) is
verified, both targets, cpu, no verdict cache, by the errorkb of `--tree` (say, a `git worktree add` of main) and by
this checkout's, alternately, N rounds each. For each it prints the CPU seconds (user + system) of every process
the run started (the harness, the zygotes and stems, the checks; a cpuacct cgroup: sandboxed ones too), the sum
of the checks' own CPU (each forked check's, as its zygote reaped it), per entry, median of N, and the ratio;
then whether both gave every check the same outcome and code (a figure from runs that disagree means nothing).

`--sandbox off` (the default) runs the release environments wherever `.errorkb-cache` lies (a link to another
checkout's, say), which the sandbox would not mount; the checks' work is the same.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter

# Run in a fresh interpreter with the measured tree first on the path, from its folder: the harness and every
# zygote it starts (they inherit PYTHONPATH; a tree from before the zygotes started with -P also put the working
# folder, which `python -m` puts first on the path, before it) are that tree's errorkb.
ONE_RUN = """
import json, sys
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify import pool
from errorkb.verify.engine import verify

root, sandbox, out, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
spent = []
run = pool.WorkerPool.run
def counted(self, check, *args, **kwargs):
    done = run(self, check, *args, **kwargs)
    spent.append((check.entry.id, done.cpu_s or 0.0))
    return done
pool.WorkerPool.run = counted
from pathlib import Path
project = load_project(Path(root))
report = verify(project, load_project_entries(project).entries, ids=ids, targets=["bundled", "upstream"],
                devices=["cpu"], sandbox=sandbox)
json.dump({"spent": spent, "verdicts": {c.id: [str(c.outcome), str(c.code)] for c in report.checks}}, open(out, "w"))
"""


def once(tree: Path, sandbox: str, ids: list[str], meter: Meter) -> tuple[float, dict[str, float], dict]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.json"
        env = {**os.environ, "PYTHONPATH": str(tree)}
        before = meter.seconds()
        done = subprocess.run([sys.executable, "-c", ONE_RUN, str(ROOT), sandbox, str(out), *ids], env=env, cwd=tree,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the run with {tree}'s errorkb failed:\n{done.stderr[-3000:]}")
        total = meter.seconds() - before
        data = json.loads(out.read_text())
    per_entry: dict[str, float] = collections.defaultdict(float)
    for entry, cpu in data["spent"]:
        per_entry[entry] += cpu
    return total, dict(per_entry), data["verdicts"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", type=Path, required=True, help="the other errorkb checkout (the baseline)")
    parser.add_argument("--n", type=int, default=2)
    parser.add_argument("--sandbox", default="off", choices=("off", "auto", "require"))
    parser.add_argument("ids", nargs="+")
    args = parser.parse_args()
    meter = Meter()
    trees = {"baseline": args.tree.resolve(), "this": ROOT}
    totals: dict[str, list[float]] = {label: [] for label in trees}
    entries: dict[str, dict[str, list[float]]] = {label: collections.defaultdict(list) for label in trees}
    verdicts: dict[str, dict] = {}
    try:
        for _ in range(args.n):
            for label, tree in trees.items():
                total, per_entry, verdicts[label] = once(tree, args.sandbox, args.ids, meter)
                totals[label].append(total)
                for entry in args.ids:
                    entries[label][entry].append(per_entry.get(entry, 0.0))
    finally:
        meter.close()
    print(f"CPU seconds, median of {args.n}, sandbox {args.sandbox}; baseline {trees['baseline']}, this {ROOT}"
          + ("" if meter.file else " (RUSAGE_CHILDREN: what ran in the sandbox is missing)"))
    print(f"  {'':48} {'baseline':>9} {'this':>9} {'ratio':>6}")
    for entry in args.ids:
        old, new = (statistics.median(entries[label][entry]) for label in trees)
        print(f"  {entry + ' (its checks)':48} {old:9.2f} {new:9.2f} {old / new if new else float('nan'):6.2f}")
    old, new = (statistics.median(totals[label]) for label in trees)
    print(f"  {'every process of the run':48} {old:9.2f} {new:9.2f} {old / new:6.2f}")
    same = verdicts["baseline"] == verdicts["this"]
    print(f"  the same outcome and code for all {len(verdicts['this'])} checks: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
