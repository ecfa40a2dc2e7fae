"""How fast do `errorkb lookup` and `errorkb show` answer, as a process, where the user is?

Runs, interleaved so that the machine's drift hits each alike, from an empty temporary folder
(no knowledge base's checkout around it: the index the installed package ships is read):

- `python -c pass` (the interpreter's own start-up, the floor);
- `errorkb lookup MESSAGE` (a message with one confirmed entry);
- `errorkb lookup -` with a whole traceback on stdin;
- `errorkb show ID`.

Prints each one's median and fastest wall time, the median's ratio to `python -c pass`, and the
median CPU time the process used (user + system, from the kernel's accounting of the child):
side by side in one run. On a busy machine the wall time is mostly waiting for a CPU, and the
CPU time says what the command itself costs. Goal: every command well under 0.5 s.

Runs with bytecode caching on (PYTHONDONTWRITEBYTECODE removed from the commands' environment), as
an installed package has it: pip compiles modules at install, and a fresh checkout's first run
writes them; the warm-up run before the timed ones writes any that are stale.

    .venv/bin/python benchmarks/lookup_cli.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_S = 0.5
MESSAGE = "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'"
TRACEBACK = """Traceback (most recent call last):
  File "/home/me/run.py", line 3, in <module>
    from transformers import HybridCache
ImportError: cannot import name 'HybridCache' from 'transformers' (/venv/lib/python3.11/site-packages/transformers/__init__.py)
"""


def commands() -> dict[str, tuple[list[str], str | None]]:
    python = sys.executable
    errorkb = str(Path(python).with_name("errorkb"))
    return {"python -c pass": ([python, "-c", "pass"], None),
            "errorkb lookup MESSAGE": ([errorkb, "lookup", MESSAGE], None),
            "errorkb lookup - (traceback)": ([errorkb, "lookup", "-"], TRACEBACK),
            "errorkb show ID": ([errorkb, "show", "get-max-length-removed"], None)}


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def once(argv: list[str], stdin: str | None, cwd: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of the command."""
    cpu, started = _cpu(), time.perf_counter()
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    result = subprocess.run(argv, input=stdin, capture_output=True, text=True, cwd=cwd, timeout=120, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(argv)} exited {result.returncode}: {result.stderr[-500:]}")
    return elapsed, _cpu() - cpu


def measure(runs: int) -> dict[str, list[tuple[float, float]]]:
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands()}
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        for argv, stdin in commands().values():  # warm the file cache
            once(argv, stdin, cwd)
        for _ in range(runs):
            for name, (argv, stdin) in commands().items():
                times[name].append(once(argv, stdin, cwd))
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args(argv)
    times = measure(args.runs)
    floor = statistics.median(wall for wall, _ in times["python -c pass"])
    print(f"{args.runs} runs each, interleaved, from an empty folder (goal: each command under {GOAL_S} s)")
    print(f"{'command':32} {'median':>9} {'fastest':>9} {'× python -c pass':>17} {'CPU (median)':>13}")
    worst = worst_cpu = 0.0
    for name, values in times.items():
        walls = [wall for wall, _ in values]
        median, cpu = statistics.median(walls), statistics.median(used for _, used in values)
        if name != "python -c pass":
            worst, worst_cpu = max(worst, median), max(worst_cpu, cpu)
        print(f"{name:32} {median * 1000:7.0f}ms {min(walls) * 1000:7.0f}ms {median / floor:16.1f}× "
              f"{cpu * 1000:11.0f}ms")
    print(f"slowest command's median: {worst:.3f} s wall, {worst_cpu:.3f} s CPU "
          f"({'within' if worst < GOAL_S else 'OVER'} the {GOAL_S} s goal in wall time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
