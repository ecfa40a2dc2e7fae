"""Where one `errorkb verify` run's time goes: its stages, timed in one process, with and without the sandbox.

    .venv/bin/python benchmarks/verify_profile.py [--n 60] [--jobs 2]

Builds the synthetic knowledge base of `verify_throughput.py` (N checks, upstream, CPU) and runs the
CLI's `verify` in this process, once per mode (`--sandbox off`, `--sandbox require`, then a warm
re-run from a filled cache), with the stages it passes through wrapped in timers from outside:
importing the CLI, loading the entries, planning, choosing the sandbox (its probe), starting the
zygotes, the checks (request to exit, per check, and the time spent in the harness reading and
judging), writing the report. Nothing in errorkb is changed to be measured. Prints one table per
mode; the stages overlap where they run in threads (the checks run `--jobs` at a time).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import verify_throughput as throughput

_times: dict[str, list[float]] = defaultdict(list)
_lock = threading.Lock()


def timed(owner: object, name: str, label: str) -> None:
    """Wrap `owner.name` so that each call's wall time is added under `label`."""
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            with _lock:
                _times[label].append(time.perf_counter() - started)

    setattr(owner, name, wrapper)


def instrument() -> float:
    started = time.perf_counter()
    import errorkb.cli as cli
    import errorkb.verify.engine as engine

    imported = time.perf_counter() - started
    from errorkb.core import load
    from errorkb.results import report
    from errorkb.verify import cache, judge, pool, sandbox

    timed(load, "load_project_entries", "load entries")
    timed(cli, "_load_or_report", "load entries (CLI, with its checks)")
    timed(engine, "plan_checks", "plan")
    timed(engine.Verifier, "_choose", "choose the sandbox and the pool (probe included)")
    timed(sandbox, "probe", "probe the sandbox")
    timed(pool.WorkerPool, "_start", "start one zygote")
    timed(pool.WorkerPool, "run", "one check, request to verdict input (pool)")
    timed(judge, "judge", "judge one check")  # the engine imports it where it judges, by name, at that moment
    timed(engine.Verifier, "answer", "answer from the cache or say why not run")
    timed(cache, "verifier_fingerprint", "verifier fingerprint")
    timed(engine, "project_inputs", "inputs digest of one entry")
    timed(engine.Verifier, "close", "close the pool")
    timed(report, "update_standing", "merge and write the report")
    return imported


def run(cli_main, root: Path, jobs: int, *extra: str) -> float:
    _times.clear()
    started = time.perf_counter()
    code = cli_main(["--root", str(root), "verify", "--target", "upstream", "--device", "cpu", "--jobs", str(jobs),
                     "--report", str(root / "reports" / f"run-{time.monotonic_ns()}.json"), *extra])
    elapsed = time.perf_counter() - started
    assert code == 0, f"errorkb verify exited {code}"
    return elapsed


def table(title: str, elapsed: float) -> None:
    print(f"\n{title}: {elapsed * 1000:.0f} ms in all")
    for label, values in sorted(_times.items(), key=lambda item: -sum(item[1])):
        median = statistics.median(values) * 1000
        print(f"  {sum(values) * 1000:9.1f} ms  {len(values):4d}×  median {median:8.2f} ms  {label}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    imported = instrument()
    from errorkb.cli import main as cli_main

    print(f"importing errorkb.cli and the verifier: {imported * 1000:.0f} ms (once per process)")
    with tempfile.TemporaryDirectory(prefix="errorkb-profile-") as folder:
        root = Path(folder)
        throughput.build(root, args.n)
        for mode in ("off", "require"):
            elapsed = run(cli_main, root, args.jobs, "--no-cache", "--sandbox", mode)
            table(f"{args.n} checks, no cache, sandbox {mode}", elapsed)
        run(cli_main, root, args.jobs, "--cache-dir", str(root / "cache"))
        elapsed = run(cli_main, root, args.jobs, "--cache-dir", str(root / "cache"))
        table(f"{args.n} checks, warm cache (every verdict from it)", elapsed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
