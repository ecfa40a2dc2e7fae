"""What would naming an error reported at interpreter teardown cost every program? (round sixteen)

An error a `__del__` raises while the interpreter tears its modules down (finalize_modules' garbage collection) gets
no block: `sys.modules` is empty and the import system unset by then (tests/test_hook_hostile.py's strict xfail).
The one way that imports nothing at that moment is to hold the explainer, its modules and the index loaded before
it, at the program's exit (`atexit`, the last moment the import system works), for an error no program can foresee.
This times `python -c pass` side by side, interleaved, in two environments alike but for that: the hook's `.pth` as
`errorkb hook install` writes it, and the same with an `atexit` callback that loads the explainer and reads the
index and its rules. Medians and fastest runs, their differences and ratios.

    .venv/bin/python benchmarks/hook_teardown.py [--runs 20]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.hook_startup import make_env, start_ms  # noqa: E402

# The rejected design: the explainer and what it reads loaded at every exit (after the program's own callbacks).
PRELOAD = ("import atexit; atexit.register(lambda: __import__('errorkb.hook.explain', fromlist=['_indexes'])"
           "._indexes(None)[0].lookup())\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pythons = {"the hook": make_env(Path(tmp) / "hook", True), "the hook + preload": make_env(Path(tmp) / "pre", True)}
        site = subprocess.run([str(pythons["the hook + preload"]), "-c", "import sysconfig; "
                               "print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True,
                              timeout=60).stdout.strip()
        (Path(site) / "errorkb-preload.pth").write_text(PRELOAD, encoding="utf-8")
        for python in pythons.values():  # warm the file cache and the bytecode
            start_ms(python)
        times: dict[str, list[float]] = {label: [] for label in pythons}
        for _ in range(args.runs):
            for label, python in pythons.items():
                times[label].append(start_ms(python))
    print(f"python -c pass, {args.runs} runs each, interleaved; ms")
    print(f"  {'':20} {'median':>8} {'fastest':>8}")
    for label, measured in times.items():
        print(f"  {label:20} {statistics.median(measured):8.1f} {min(measured):8.1f}")
    base, preload = times["the hook"], times["the hook + preload"]
    for what, pick in (("median", statistics.median), ("fastest", min)):
        print(f"  preloading at every exit ({what}): {pick(preload) - pick(base):+.1f} ms, "
              f"ratio {pick(preload) / pick(base):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
