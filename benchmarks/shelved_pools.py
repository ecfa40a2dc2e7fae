"""What a verify run's own pool costs against the checks it runs, and what a pool kept for the next run saves.

    .venv/bin/python benchmarks/shelved_pools.py [--n 3] [--runs 3] [--sandbox require|off] [--python PATH]

A test of the verifier verifies a small project, often more than once (cold, then after an edit), and each run's
pool started its zygotes anew: each imports the runtime, the library and its preloads, and copies the namespaces it
forks with, before its first check. `engine.shelved_pools` (the full tier's `_shelved_pools`, tests/conftest.py) keeps
a run's pool for the next run of the process whose key is the same (`engine.Shelf`).

A copy of the broken fixture's honest and failing entries (tests/fixtures/broken_kb: good-head-dim,
before-wrong-type, after-still-raises), the bundled target, cpu, no verdict cache, verified `--runs` times, each run
with the same verdicts; the CPU seconds (user + system) of every process (the sandboxed zygotes and checks included:
a cpuacct cgroup, `check_start.Meter`), median of N, for

- `a pool per run`: as before, each run starts and ends its own pool;
- `shelved`: the runs share one pool through `engine.shelved_pools`;

and, of the first: the run that started the pool against a run of the same checks from warm zygotes (what a test's
pool start costs beside its checks). `--python`: the interpreter the checks run in (tests/lean.py's lean one is what
most verifier tests use; default this one).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter

FIXTURE = ROOT / "tests" / "fixtures" / "broken_kb"
ENTRIES = ("good-head-dim", "before-wrong-type", "after-still-raises")


def copy(folder: Path) -> Path:
    """The fixture with ENTRIES only."""
    root = folder / "kb"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__", "reports", ".errorkb-cache"))
    for path in (root / "docs" / "errors").rglob("*.yml"):
        if path.stem not in ENTRIES:
            path.unlink()
    for path in (root / "snippets").iterdir():
        if path.name not in ENTRIES:
            shutil.rmtree(path)
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sandbox", default="require", choices=("require", "off"))
    parser.add_argument("--python", type=Path, default=None)
    args = parser.parse_args()
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.verify import engine

    if args.python is not None:  # every check of this interpreter runs in that one (as tests/lean.py's checks_in)
        chosen = engine.Verifier.interpreter

        def interpreter(self: engine.Verifier, check: object) -> Path | None:
            found = chosen(self, check)  # type: ignore[arg-type]
            return args.python if found == Path(sys.executable) else found

        engine.Verifier.interpreter = interpreter  # type: ignore[method-assign]
    meter = Meter()
    print(f"checks in {args.python or sys.executable}, bundled target, cpu, sandbox {args.sandbox}, {args.runs} runs "
          f"of {len(ENTRIES)} entries, median of {args.n}, CPU (user + system) of every process"
          + ("" if meter.file else " (RUSAGE_CHILDREN: what ran in the sandbox is missing)"))
    with tempfile.TemporaryDirectory(prefix="errorkb-shelf-") as folder:
        root = copy(Path(folder))
        project = load_project(root)
        loaded = load_project_entries(project).entries
        verdicts: set[tuple[tuple[str, str, str], ...]] = set()

        def run() -> float:
            before = meter.seconds()
            report = engine.verify(project, loaded, targets=["bundled"], devices=["cpu"], sandbox=args.sandbox)
            verdicts.add(tuple(sorted((record.id, record.outcome, record.code) for record in report.checks)))
            return meter.seconds() - before

        try:
            own, shelved, first, warm = [], [], [], []
            for _ in range(args.n):
                runs = [run() for _ in range(args.runs)]
                own.append(sum(runs))
                with engine.shelved_pools():
                    runs = [run() for _ in range(args.runs)]
                shelved.append(sum(runs))
                first.append(runs[0])
                warm.append(statistics.median(runs[1:]) if len(runs) > 1 else float("nan"))
        finally:
            meter.close()
        if len(verdicts) != 1:
            raise SystemExit(f"the runs' verdicts differ: {verdicts}")
        (same,) = verdicts
        print(f"  {len(same)} checks a run, the same verdicts in every run ({', '.join(sorted({v[1] for v in same}))})")
        rows = [("a pool per run", statistics.median(own)), ("shelved", statistics.median(shelved))]
        for label, seconds in rows:
            print(f"    {label:16} {seconds:7.2f} s  {seconds / rows[0][1]:5.2f}x")
        cold, hot = statistics.median(first), statistics.median(warm)
        print(f"  one run: starting its pool {cold:.2f} s, from a shelved pool {hot:.2f} s: the pool's start "
              f"{cold - hot:.2f} s of the cold run's {cold:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
