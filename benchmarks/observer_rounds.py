"""Two observers on the same checks, side by side in one run (issue 22): this checkout's
`errorkb/verify/inside/observer.py` beside another revision's (default dd9f116: before round thirty-three
landed), everything else the same.

    .venv/bin/python benchmarks/observer_rounds.py [--old dd9f116] [--rounds 3] [--isolation subprocess fork]
                                                   [--entries ID ...]

Each way is a throwaway project folder: this checkout's `errorkb` copied (the old way with the old revision's
observer.py put in its place, read by `git show`), `transformers_errorkb` and the knowledge base copied, compiled
first. Each round runs `errorkb verify --no-cache --sandbox off --jobs 1` over the same entries (both targets, every
snippet) once per way, the ways alternating (which goes first alternates too), each isolation in turn. Printed per
isolation: the CPU seconds of each run (user + system of the CLI and all it waited for: zygote, checks; the sandbox
is off so that every process is counted), the median of each way, and their ratio, with the load average beside.
Both ways must give every check the same outcome, or the figure means nothing (exit 1).
"""

from __future__ import annotations

import argparse
import collections
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OBSERVER = "errorkb/verify/inside/observer.py"
# Entries whose snippets import what most of the knowledge base's do (a cache, a model, generation), small enough
# that a round stays under a minute of CPU per way in subprocess isolation.
ENTRIES = ("head-dim-list-length", "cache-append-new-layers-removed", "attention-forward-past-key-values-kwarg",
           "batch-size-inconsistent-across-layers")
COPIED = ("pyproject.toml", "docs/errors", "snippets", "transformers_errorkb")  # the loader refuses links out


def make_way(base: Path, name: str, observer_source: str | None) -> Path:
    """A project folder whose `errorkb` is this checkout's, with `observer_source` as its observer where given."""
    folder = base / name
    folder.mkdir()
    shutil.copytree(ROOT / "errorkb", folder / "errorkb", ignore=shutil.ignore_patterns("__pycache__"))
    if observer_source is not None:
        (folder / OBSERVER).write_text(observer_source, encoding="utf-8")
    for copied in COPIED:
        if (ROOT / copied).is_dir():
            shutil.copytree(ROOT / copied, folder / copied, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / copied, folder / copied)
    (folder / "reports").mkdir()
    compileall.compile_dir(folder / "errorkb", quiet=1)
    return folder


def env_for(folder: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(folder), PYTHONDONTWRITEBYTECODE="1")


def observer_file(folder: Path) -> str:
    """Which observer a process started as the runs' are imports (it must be the way's own)."""
    done = subprocess.run([sys.executable, "-c", "import errorkb.verify.inside.observer as o; print(o.__file__)"],
                          cwd=folder, env=env_for(folder), capture_output=True, text=True, check=True)
    return done.stdout.strip()


def run_way(folder: Path, isolation: str, entries: list[str]) -> tuple[float, float, dict[str, str]]:
    """(CPU s, wall s, check id -> outcome) of one `errorkb verify` in `folder`."""
    report = folder / "reports" / f"run-{isolation}.json"
    argv = [sys.executable, "-m", "errorkb.cli", "verify", "--no-cache", "--sandbox", "off", "--jobs", "1",
            "--isolation", isolation, "--target", "bundled", "--target", "upstream", "--device", "cpu",
            "--report", str(report), *entries]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=folder, env=env_for(folder), capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if not report.exists():
        raise SystemExit(f"{folder.name} {isolation}: no report (exit {done.returncode}): {done.stderr[-2000:]}")
    checks = json.loads(report.read_text(encoding="utf-8"))["checks"]
    outcomes = {check["id"]: check["outcome"] for check in (checks.values() if isinstance(checks, dict) else checks)}
    report.unlink()
    return cpu, wall, outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="dd9f116", help="the revision whose observer.py is the old way")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--isolation", nargs="+", default=["subprocess", "fork"], choices=["subprocess", "fork"])
    parser.add_argument("--entries", nargs="+", default=list(ENTRIES))
    args = parser.parse_args()
    old_source = subprocess.run(["git", "show", f"{args.old}:{OBSERVER}"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout
    with tempfile.TemporaryDirectory(prefix="observer-rounds-") as scratch:
        ways = {"now": make_way(Path(scratch), "now", None), args.old: make_way(Path(scratch), "old", old_source)}
        for name, folder in ways.items():
            found = observer_file(folder)
            if not found.startswith(str(folder)):
                raise SystemExit(f"{name}: the observer imported is {found}, not the way's own")
        print(f"entries: {', '.join(args.entries)}; both targets, every snippet, CPU device, --jobs 1, sandbox off")
        failed = False
        for isolation in args.isolation:
            spent: dict[str, list[float]] = {name: [] for name in ways}
            walls: dict[str, list[float]] = {name: [] for name in ways}
            seen: dict[str, dict[str, str]] = {}
            loads = []
            for index in range(args.rounds):
                order = list(ways) if index % 2 == 0 else list(reversed(ways))
                for name in order:
                    loads.append(os.getloadavg()[0])
                    cpu, wall, outcomes = run_way(ways[name], isolation, args.entries)
                    spent[name].append(cpu)
                    walls[name].append(wall)
                    if seen.setdefault(name, outcomes) != outcomes:
                        print(f"  {name}: outcomes differ between rounds")
                        failed = True
                    print(f"  {isolation:10} round {index + 1} {name:8} {cpu:7.1f} s CPU {wall:7.1f} s wall "
                          f"({len(outcomes)} checks: {dict(collections.Counter(outcomes.values()))}, load {loads[-1]:.1f})",
                          flush=True)
            differing = {key: {name: seen[name].get(key) for name in seen} for key in set().union(*seen.values())
                         if len({seen[name].get(key) for name in seen}) > 1}
            if differing:
                print(f"  {isolation}: the ways' outcomes differ: {dict(sorted(differing.items()))}")
                failed = True
            now, old = statistics.median(spent["now"]), statistics.median(spent[args.old])
            wall_now, wall_old = statistics.median(walls["now"]), statistics.median(walls[args.old])
            print(f"{isolation}: median CPU now {now:.1f} s, {args.old} {old:.1f} s: now / {args.old} = "
                  f"{now / old:.3f}; wall {wall_now:.1f} s vs {wall_old:.1f} s ({wall_now / wall_old:.3f}); "
                  f"load average {min(loads):.1f}-{max(loads):.1f}", flush=True)
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
