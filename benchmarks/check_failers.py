"""What plain `errorkb check` pays to warn of a pin that raises on every call (`errorkb.author.failing.warnings`),
beside the whole command, on the repository's knowledge base and on tinylib's.

    .venv/bin/python benchmarks/check_failers.py [--n 3]

Each figure is the median wall-clock seconds of N fresh interpreters: `errorkb --root KB check` whole (the step
included), and the step alone, cold (a fresh process that loads the entries, then times only `warnings`: the pinned
files read, each pin's function's lines parsed). The ratio is the step's share of the command.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STEP = """
import json, sys, time
from pathlib import Path
from errorkb.author.failing import warnings
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
project = load_project(Path(sys.argv[1]))
entries = load_project_entries(project).entries
started = time.perf_counter()
said = warnings(entries, project)
print(json.dumps([time.perf_counter() - started, len(entries), len(said)]))
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    print(f"median of {args.n} fresh processes, wall-clock seconds")
    print(f"  {'knowledge base':24} {'entries':>7} {'check':>8} {'warning step':>13} {'share':>7}")
    for label, kb in (("repository", ROOT), ("tinylib", ROOT / "tests" / "fixtures" / "tinylib_kb")):
        whole, step = [], []
        for _ in range(args.n):
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "errorkb", "--root", str(kb), "check"], env=env, cwd=ROOT,
                                  capture_output=True, text=True, check=False)
            whole.append(time.perf_counter() - started)
            if done.returncode != 0:
                raise SystemExit(f"errorkb check of {kb} failed, so its figure would mean nothing:\n{done.stderr}")
            seconds, entries, _ = json.loads(subprocess.run([sys.executable, "-c", STEP, str(kb)], env=env, cwd=ROOT,
                                                            capture_output=True, text=True, check=True).stdout)
            step.append(seconds)
        check, alone = statistics.median(whole), statistics.median(step)
        print(f"  {label:24} {entries:7} {check:7.2f}s {alone * 1000:10.1f} ms {alone / check:6.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
