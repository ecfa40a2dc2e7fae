"""What a CPU zygote costs when it is told the modules it will serve at start, beside one that meets them check by check.

    .venv/bin/python benchmarks/zygote_modules.py [--n 3] [--modules 1,4] [--sandbox require|off]

A CPU zygote serves every module of its target (`pool.WorkerPool._start`). Before it forks a check it copies the
namespaces of everything loaded (`child.snapshot_python`: a walk of every object the interpreter holds, with torch,
hqq and the library loaded about half a million), and once more before the first check of each module it had not
prepared. Told its modules when it starts (`WorkerPool.warm`'s keys, else the first check's module), it prepares them
all first and copies once (`child.runtime_preloads`).

For each number of modules (`--modules`), the upstream target of this environment, one `after` of the repository's
knowledge base per module, each must pass: the CPU seconds (user + system) of the whole pool, the zygote's start
included, median of N, for

- `met check by check`: the zygote told only the library's own name (`serves=[library]`), as before: each module is
  prepared, and the namespaces copied again, before its first check;
- `given at start`: the zygote told every module (`WorkerPool.warm`), as `errorkb verify` starts it.

CPU is read from a cpuacct cgroup (`check_start.Meter`; the sandboxed processes never reach RUSAGE_CHILDREN).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter

# One `after` per module of the library's package, each in this environment's transformers (5.15.1).
ENTRIES = ("batch-size-inconsistent-across-layers", "attention-forward-past-key-values-kwarg",
           "legacy-tuple-generate", "cache-implementation-invalid")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--modules", default="1,4")
    parser.add_argument("--sandbox", default="require", choices=("require", "off"))
    args = parser.parse_args()
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.plugs import runtime_for
    from errorkb.verify.engine import Verifier, plan_checks
    from errorkb.verify.judge import judge
    from errorkb.verify.pool import WorkerPool

    project = load_project(ROOT)
    loaded = load_project_entries(project).entries
    runtime = runtime_for(project.library.runtime)
    verifier = Verifier(project, ["upstream"], sandbox=args.sandbox)
    sandbox = verifier.sandbox
    verifier.close()
    meter = Meter()
    print(f"{sys.executable}, upstream target, sandbox {args.sandbox}, median of {args.n}, CPU (user + system) of every "
          "process started" + ("" if meter.file else " (RUSAGE_CHILDREN: what ran in the sandbox is missing)"))
    try:
        for count in (int(part) for part in args.modules.split(",")):
            checks = plan_checks(project, loaded, ids=list(ENTRIES[:count]), targets=["upstream"], devices=["cpu"],
                                 kinds=["after"])
            assert len({check.module for check in checks}) == count, [check.module for check in checks]
            keys = {("upstream", "cpu", check.module, sys.executable, ()) for check in checks}
            rows = []
            for label, serves in (("met check by check", [project.library.name]), ("given at start", None)):
                spent = []
                for _ in range(args.n):
                    before = meter.seconds()
                    with WorkerPool(project.library, None, sandbox) as pool:
                        for key in sorted(keys):
                            pool._start(*key, serves=serves or sorted(key[2] for key in keys))
                        for check in checks:
                            outcome = judge(check, pool.run(check, 120), runtime).outcome
                            if outcome != "pass":
                                raise SystemExit(f"{check.id}: {outcome} ({label}), so its figure would mean nothing")
                    spent.append(meter.seconds() - before)
                rows.append((label, statistics.median(spent)))
            print(f"  {count} module(s), {len(checks)} check(s):")
            for label, seconds in rows:
                print(f"    {label:22} {seconds:7.2f} s  {seconds / rows[0][1]:5.2f}x")
    finally:
        meter.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
