"""What does the guard's care for `sys.modules` (round eight) cost, beside another checkout's hook?

Round eight made the guard hand back the modules its imports loaded that the program's folder holds under the same
name (`guard._give_back`, when the last thread leaves the hook's imports) and check, before the explainer loads,
that no module the program loaded from its folder is named like one the explainer imports (`guard.foreign`). The
`.pth` line is unchanged (site.py's work at start-up: `benchmarks/hook_startup.py`); this times the two moments the
guard now does more, in interpreters whose `errorkb` comes from this checkout and from `--base` (an earlier one),
each with the hook installed, runs interleaved:

- the first `import asyncio` (which imports threading: the `.pth`'s finder loads the chains through the guard);
- a thread's uncaught documented error, reported and explained (`Thread.join` returns after the hook's block).

Both timed inside the interpreter (perf_counter around the statement), so start-up noise stays out.

    .venv/bin/python benchmarks/hook_guard_modules.py --base /work/main [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_hook import library_raise  # noqa: E402 (a stand-in raising the documented error, no torch import)

_TIMED = {
    "first import asyncio": ("", "import asyncio"),
    "a thread's documented error": ("import threading\n{library}thread = threading.Thread(target=early_initialization)\n",
                                    "thread.start(); thread.join()"),
}
_PROGRAM = "import time\n{setup}started = time.perf_counter()\n{statement}\nprint((time.perf_counter() - started) * 1e3)\n"


def make_env(folder: Path, root: Path) -> Path:
    """A venv whose `errorkb` is `root`'s (and the project environment's packages), with the hook installed."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=120)
    python = folder / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True, timeout=60).stdout.strip())
    (site / "errorkb-paths.pth").write_text(f"{root}\n{sysconfig.get_paths()['purelib']}\n", encoding="utf-8")
    subprocess.run([str(python), "-m", "errorkb.cli", "hook", "install"], check=True, capture_output=True, timeout=120,
                   cwd=folder)
    return python


def timed_ms(python: Path, script: Path) -> float:
    result = subprocess.run([str(python), str(script)], capture_output=True, text=True, timeout=120,
                            cwd=script.parent)
    return float(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="another errorkb checkout (main's), side by side")
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pythons = {"base": make_env(folder / "base", args.base.resolve()), "this": make_env(folder / "this", ROOT)}
        library = library_raise(folder)
        for label, (setup, statement) in _TIMED.items():
            script = folder / "program" / "script.py"
            script.parent.mkdir(exist_ok=True)
            script.write_text(_PROGRAM.format(setup=setup.format(library=library), statement=statement),
                              encoding="utf-8")
            for python in pythons.values():  # warm the file cache
                timed_ms(python, script)
            times: dict[str, list[float]] = {name: [] for name in pythons}
            for _ in range(args.runs):
                for name, python in pythons.items():
                    times[name].append(timed_ms(python, script))
            base, this = statistics.median(times["base"]), statistics.median(times["this"])
            fast_base, fast_this = min(times["base"]), min(times["this"])
            print(f"{label}, {args.runs} runs each, interleaved, ms: base median {base:.2f} fastest {fast_base:.2f}; "
                  f"this median {this:.2f} fastest {fast_this:.2f}; ratio this / base: median {this / base:.3f}, "
                  f"fastest {fast_this / fast_base:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
