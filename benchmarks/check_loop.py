"""`errorkb check` on this repository's knowledge base, the author's inner loop: before and after, side by side.

    .venv/bin/python benchmarks/check_loop.py [--before REF] [--n 1]

A copy of the repository's tracked files (a temporary folder, its own empty `.errorkb-cache`) is checked by:

1. `before`: the errorkb of git ref `--before` (default 83dacf4, the commit before the check's rehearsal record
   and its single matrix parse), which renders every page each run;
2. `after, cold`: this checkout's errorkb, its record of rehearsed pages empty (a fresh clone, a new renderer);
3. `after, warm`: again, nothing changed (every page rendered within budget before);
4. `after, one edit`: one entry's `trigger` changed, as an author's edit does (its page and the pages listing it
   are rendered again);
5. `after, --rehearse-all`: every page rendered, as in a pull request's CI run.

Each line: the median wall-clock seconds of N runs, the CPU seconds of the process and its children, and the
ratio of its wall time to `before`'s. Every run must say `N entries OK`, or the benchmark stops.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tracked_copy(ref: str | None, into: Path) -> None:
    """The repository's files at `ref` (None: the working tree's tracked files) in `into`."""
    if ref is None:
        names = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, check=True).stdout
        for name in filter(None, names.decode().split("\0")):
            source = ROOT / name
            if source.is_file() and not source.is_symlink():
                (into / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, into / name)
        return
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def run(code: Path, project: Path, *options: str) -> tuple[float, float]:
    """(wall, CPU) seconds of one `errorkb check` of `project` by the errorkb in `code`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "errorkb", "--root", str(project), "check", *options],
                          cwd=code, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(code)})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or "entries OK" not in done.stdout:
        sys.exit(f"errorkb check failed ({done.returncode}):\n{done.stdout}\n{done.stderr[-3000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def edit_one(project: Path, round_: int) -> None:
    entry = sorted((project / "docs" / "errors").rglob("*.yml"))[0]
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("trigger: ", f"trigger: (edit {round_}) ", 1), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="83dacf4")
    parser.add_argument("--n", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errorkb-check-loop-") as folder:
        old, project = Path(folder) / "before", Path(folder) / "project"
        old.mkdir()
        project.mkdir()
        tracked_copy(args.before, old)
        tracked_copy(None, project)
        cache = project / ".errorkb-cache"
        rows: list[tuple[str, list[tuple[float, float]]]] = []
        rows.append(("before (" + args.before + ")", [run(old, project) for _ in range(args.n)]))
        cold = []
        for _ in range(args.n):
            shutil.rmtree(cache, ignore_errors=True)
            cold.append(run(ROOT, project))
        rows.append(("after, cold", cold))
        rows.append(("after, warm", [run(ROOT, project) for _ in range(args.n)]))
        edited = []
        for round_ in range(args.n):
            edit_one(project, round_)
            edited.append(run(ROOT, project))
        rows.append(("after, one edit", edited))
        rows.append(("after, --rehearse-all", [run(ROOT, project, "--rehearse-all") for _ in range(args.n)]))
    base = statistics.median(wall for wall, _ in rows[0][1])
    print(f"errorkb check, {args.n} run(s) each, median; os.cpu_count()={os.cpu_count()}, "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'':28} {'wall s':>8} {'CPU s':>8} {'wall / before':>14}")
    for name, times in rows:
        wall = statistics.median(one for one, _ in times)
        cpu = statistics.median(one for _, one in times)
        print(f"{name:28} {wall:8.1f} {cpu:8.1f} {wall / base:14.2f}")


if __name__ == "__main__":
    main()
