"""What the subprocess-mode adversarial run costs, and what `JUDGE_ONLY`'s converse took out of it, side by side.

    .venv/bin/python benchmarks/adversarial_subprocess.py [--moved-only]

The full tier's longest test verifies the adversarial fixture with `--isolation subprocess` in the sandbox: a fresh
interpreter per check, each importing the runtime (about 1.3-1.7 s of CPU apiece, benchmarks/check_start.py). An
attack that reaches nothing outside the interpreter meets the same child, observer and judge in a fork, so it is
verified in fork mode only (tests/verify/adversarial.py: `JUDGE_ONLY`, whose converse test_adversarial.py now
asserts). This runs, as the test's fixture does (`Workspace.verify`, a throwaway copy, the lean environment less
the project's tools), the subprocess run's checks in two parts: the attacks it keeps (with the honest controls),
and the attacks `MOVED` out of it; before = both, after = the kept part. `--moved-only` runs the second part alone.

CPU is read from a cgroup this process joins (benchmarks/check_start.py's `Meter`): the sandboxed checks live in
another PID namespace and never reach `RUSAGE_CHILDREN`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.check_start import Meter  # noqa: E402
from tests.verify.adversarial import Workspace, answer_key, attacks, control_ids  # noqa: E402

# The attacks that reached nothing outside yet ran in subprocess mode until the converse of `JUDGE_ONLY` was tested.
MOVED = ("torch-error-caught", "partial-chosen-data")


def measure(workspace: Workspace, meter: Meter, ids: list[str]) -> tuple[int, float, float]:
    """(checks, CPU seconds, wall seconds) of one subprocess-mode run over `ids`."""
    cpu, wall = meter.seconds(), time.perf_counter()
    outcome = workspace.verify(isolation="subprocess", sandbox="require", ids=ids, cache=False, targets=("bundled",))
    cpu, wall = meter.seconds() - cpu, time.perf_counter() - wall
    if outcome.report is None or outcome.timed_out:
        raise SystemExit(f"the run gave no report (exit {outcome.returncode}): {outcome.stderr[-1000:]}")
    return len(outcome.records), cpu, wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moved-only", action="store_true")
    args = parser.parse_args()
    key = answer_key()
    kept = attacks("subprocess") + control_ids()
    moved = [entry for entry in MOVED if entry in key and entry not in kept]
    if len(moved) != len(MOVED):
        raise SystemExit(f"MOVED is stale: {sorted(set(MOVED) - set(moved))} run in subprocess mode or are gone")
    meter = Meter()
    try:
        with tempfile.TemporaryDirectory(prefix="errorkb-adversarial-bench-") as folder:
            workspace = Workspace(Path(folder))
            try:
                workspace.python  # noqa: B018  (the lean environment, made before the meter counts)
                rows = [("the attacks moved to fork mode", measure(workspace, meter, moved))]
                if not args.moved_only:
                    rows.insert(0, ("the attacks kept, and the controls", measure(workspace, meter, kept)))
            finally:
                workspace.close()
    finally:
        meter.close()
    print(f"subprocess-mode adversarial run, sandboxed, bundled target, CPU of every process it started"
          f"{'' if meter.file else ' (RUSAGE_CHILDREN: misses what ran in the sandbox)'}")
    for label, (checks, cpu, wall) in rows:
        print(f"  {label:40} {checks:4d} checks  {cpu:7.1f} s CPU  {cpu / checks:5.2f} s/check  {wall:7.1f} s wall")
    if not args.moved_only:
        (kept_n, kept_cpu, _), (moved_n, moved_cpu, _) = rows[0][1], rows[1][1]
        print(f"  before (both): {kept_n + moved_n} checks, {kept_cpu + moved_cpu:.1f} s CPU; after (kept): {kept_n} "
              f"checks, {kept_cpu:.1f} s CPU; {(kept_cpu + moved_cpu) / kept_cpu:.3f}x less")
    return 0


if __name__ == "__main__":
    sys.exit(main())
