"""What leaving this project's tools out of an adversarial run's environment costs, one tool at a time beside all found first.

    .venv/bin/python benchmarks/without_tools.py [--n 3]

The adversarial tests make their run's Python a hard-linked copy of this environment less hqq and this project's
tools (`tests/lean.py`: `lean_environment`, which calls `without_tools`), four times a session and once per test
process (`lean_python`). Each tool is
hidden as the sandbox would hide it (`requirements.installed_files`), from the file lists of every distribution
installed there, cached under the folder and its time of change. For each way, in a fresh copy, median of N, CPU
seconds (user + system) of this process:

- `one at a time`: as before, each tool found and removed in turn: each removal changes the folder, so the next tool
  reads every distribution's RECORD again;
- `found first`: every tool's files found in the copy as made, then removed (`without_tools` as it was);
- `in the source`: `without_tools(..., installed=)`: every tool's files found in this environment, whose file
  lists this process reads once (the first round pays it; the median is a later round's), then removed from the copy.

All must leave the same files (checked on every run): a difference stops the benchmark.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _listing(folder: Path) -> set[str]:
    return {os.path.relpath(os.path.join(root, name), folder)
            for root, folders, files in os.walk(folder) for name in folders + files}


def one_at_a_time(site: Path, names: tuple[str, ...]) -> None:
    """`without_tools` as it was: each tool's files found right before they are removed."""
    from errorkb.verify.requirements import installed_files

    for name in names:
        for path in map(Path, installed_files(name, site)):
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3)
    args = parser.parse_args()
    from tests.lean import TOOLS, lean_environment, site_packages, without_tools

    source = site_packages(Path(sys.prefix))
    ways = {"one at a time": lambda site: one_at_a_time(site, TOOLS), "found first": without_tools,
            "in the source": lambda site: without_tools(site, installed=source)}
    spent: dict[str, list[float]] = {name: [] for name in ways}
    with tempfile.TemporaryDirectory() as folder:
        for round_ in range(args.n):
            left = {}
            for name, way in ways.items():
                python = lean_environment(Path(folder) / f"{round_}-{len(left)}", tools=True)
                if python == Path(sys.executable):
                    print("hard links refused here: no copy to remove the tools from", file=sys.stderr)
                    return 1
                site = site_packages(python.parent.parent)
                started = _cpu()
                way(site)
                spent[name].append(_cpu() - started)
                left[name] = _listing(site)
            first, *others = left.values()
            if any(other != first for other in others):
                print("the ways left different files: not the same environment", file=sys.stderr)
                return 1
    print(f"{len(TOOLS)} tools left out of a hard-linked copy of {sys.prefix}, median of {args.n}, CPU (user + system)")
    base = statistics.median(spent["one at a time"])
    for name, values in spent.items():
        median = statistics.median(values)
        print(f"  {name:14} {median:6.2f} s   {base / median:5.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
