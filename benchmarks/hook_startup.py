"""What does the installed hook add to interpreter start-up?

Two throw-away environments made side by side from the same base interpreter, identical but
for one file: each has a `.pth` that puts this checkout (and the project environment's
site-packages) on the path; the second also has `errorkb-hook.pth`, as `errorkb hook install`
writes it. Each runs `python -c pass` many times, interleaved, so the machine's drift hits both
alike; the medians, their difference and their ratio are printed. Goal: under 5 ms added.

    .venv/bin/python benchmarks/hook_startup.py [--runs 40]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_MS = 5.0


def make_env(folder: Path, hook: bool) -> Path:
    """A venv at `folder` that imports errorkb from this checkout (and the project environment's
    packages); with `hook`, the hook's `.pth` too. Returns its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip())
    (site / "errorkb-paths.pth").write_text(f"{ROOT}\n{sysconfig.get_paths()['purelib']}\n", encoding="utf-8")
    if hook:
        subprocess.run([str(python), "-m", "errorkb.cli", "hook", "install"], check=True, capture_output=True,
                       timeout=120)
    return python


def start_ms(python: Path) -> float:
    started = time.perf_counter()
    subprocess.run([str(python), "-c", "pass"], check=True)
    return (time.perf_counter() - started) * 1000


def measure(runs: int) -> tuple[float, float]:
    """(median start-up without the hook, with it), in ms."""
    with tempfile.TemporaryDirectory() as tmp:
        plain, hooked = make_env(Path(tmp) / "plain", False), make_env(Path(tmp) / "hooked", True)
        for python in (plain, hooked):  # warm the file cache
            start_ms(python)
        without, with_hook = [], []
        for _ in range(runs):
            without.append(start_ms(plain))
            with_hook.append(start_ms(hooked))
    return statistics.median(without), statistics.median(with_hook)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    without, with_hook = measure(args.runs)
    added = with_hook - without
    print(f"interpreter start-up, median of {args.runs} runs each, interleaved")
    print(f"  without the hook: {without:7.2f} ms")
    print(f"  with the hook:    {with_hook:7.2f} ms")
    print(f"  added:            {added:7.2f} ms  (ratio {with_hook / without:.3f}; goal < {GOAL_MS:g} ms) "
          + ("OK" if added < GOAL_MS else "OVER"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
