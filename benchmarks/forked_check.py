"""The CPU of one check forked from a warm zygote: another revision of errorkb beside this tree's, in one run.

    .venv/bin/python benchmarks/forked_check.py [--before main] [--n 15] [--sandbox off|require]

A forked check's CPU is mostly the harness's set-up before the snippet (the observer's copies and walks), and it is
paid by every check of every fork-mode run (the knowledge base's, the adversarial fixture's, most verifier tests). For
each side, a fresh process imports errorkb from that side's tree (`--before`'s files from `git archive`, then this
working tree), starts one pool on a copy of the broken fixture (good-head-dim's after, bundled and upstream, cpu, in
this interpreter), runs one check to warm the zygote, then N checks, and reports the median CPU of one check (user +
system of everything it started, read from a cgroup where one can be joined: `check_start.Meter`). Prints both sides
and their ratio per target; exits 1 if a check did not pass on either side, so a figure is never quoted from a broken
run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "broken_kb"
TARGETS = ("bundled", "upstream")


def inner(n: int, sandbox: str) -> dict[str, tuple[str, float]]:
    """In this process's errorkb (whatever PYTHONPATH gave it): target → (outcome, median CPU seconds a check)."""
    from benchmarks.check_start import Meter
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.core.snippets import Role, read_snippet
    from errorkb.plugs import runtime_for
    from errorkb.verify.judge import judge
    from errorkb.verify.plan import Check
    from errorkb.verify.pool import WorkerPool
    from errorkb.verify.sandbox import choose

    runtime = runtime_for("torch")
    results = {}
    meter = Meter()
    try:
        with tempfile.TemporaryDirectory(prefix="errorkb-forked-check-") as folder:
            root = Path(folder) / "kb"
            shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(".errorkb-cache", "reports", "__pycache__"))
            project = load_project(root)
            entry = next(one.entry for one in load_project_entries(project).entries if one.entry.id == "good-head-dim")
            path = root / "snippets" / "good-head-dim" / "after.py"
            box = choose(sandbox, [root], [], runtime=runtime, packages=("torch", "transformers", "optimum"),
                         env_prefixes=tuple(project.library.env_prefixes), warn=lambda message: None)
            for target in TARGETS:
                check = Check(entry, read_snippet(path, Role("after"), path.name), target, "cpu",
                              "transformers.cache_utils")
                with WorkerPool(project.library, ["transformers:DynamicCache", "transformers:LlamaConfig"], box) as pool:
                    outcomes = {str(judge(check, pool.run(check, 120), runtime).outcome)}
                    spent = []
                    for _ in range(n):
                        before = meter.seconds()
                        run = pool.run(check, 120)
                        spent.append(meter.seconds() - before)
                        outcomes.add(str(judge(check, run, runtime).outcome))
                results[target] = (",".join(sorted(outcomes)), statistics.median(spent))
    finally:
        meter.close()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", default="main", help="the git revision to compare with (default main)")
    parser.add_argument("--n", type=int, default=15)
    parser.add_argument("--sandbox", default="off", choices=("off", "require"))
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        print(json.dumps(inner(args.n, args.sandbox)))
        return 0
    sides = {}
    with tempfile.TemporaryDirectory(prefix="errorkb-before-") as folder:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "errorkb"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
        (Path(folder) / "benchmarks").symlink_to(ROOT / "benchmarks")
        for label, tree in ((args.before, Path(folder)), ("this tree", ROOT)):
            env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
            done = subprocess.run([sys.executable, "-P", str(Path(__file__).resolve()), "--inner", "--n", str(args.n),
                                   "--sandbox", args.sandbox], env=env, cwd=tree, capture_output=True, text=True)
            if done.returncode != 0:
                raise SystemExit(f"{label}: {done.stderr[-2000:]}")
            sides[label] = json.loads(done.stdout.strip().splitlines()[-1])
    before, after = sides[args.before], sides["this tree"]
    print(f"one check forked from a warm zygote, good-head-dim's after, cpu, sandbox {args.sandbox}, median of {args.n}"
          f" (CPU seconds of everything it started)")
    for target in TARGETS:
        print(f"  {target:9} {args.before}: {before[target][1]:.4f} s   this tree: {after[target][1]:.4f} s   "
              f"{after[target][1] / before[target][1]:.2f}x")
    failed = [f"{label} {target}: {side[target][0]}" for label, side in sides.items() for target in TARGETS
              if side[target][0] != "pass"]
    for problem in failed:
        print(f"NOT COMPARABLE: a check did not pass ({problem})", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
