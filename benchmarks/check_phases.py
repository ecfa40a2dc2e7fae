"""Where one check's process spends its CPU, stage by stage, in each isolation mode: a fresh interpreter per check
(`--isolation subprocess`) and a zygote (fork mode: once per run, then a fork per check).

    .venv/bin/python benchmarks/check_phases.py [--n 3] [--entry ID] [--python PATH]

Runs the knowledge base's `--entry` `after` (bundled, cpu) N times as `run_check` runs it, and starts N zygotes of
the bundled target as the pool does, each through a stand-in interpreter that runs the very module the harness
asks for (`errorkb.verify.inside.child`, `errorkb.verify.inside.zygote`) with the stages it passes through wrapped
in timers (`time.process_time`, the process's own CPU): the interpreter's start (`site`), the verifier's own
modules, `child.prepare` (the runtime, the target, the library's backends: imports), the observer's copy of every
trusted namespace and class (`observer.snapshot_trusted`), `observer.install`, the rest (the snippet, the end and
the exit). Nothing in errorkb is changed to be measured; the wrappers are outside. Without the sandbox: what
bwrap and the jail add to a check is `benchmarks/check_start.py`'s (its phase lines) and `jail_cost.py`'s.

A stand-in's timers sit between the observer and the exit it expects, so the check's verdict is not the one an
unwrapped check gets (its end is followed by the stand-in's own line): only the stages are read here.
"""

from __future__ import annotations

import argparse
import collections
import glob
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The stand-in interpreter's program: wrap the stages, then run the module the harness asked for on its argument.
STAND_IN = r'''
import functools, json, os, posix, sys, time
out, module_name, argument = sys.argv[1], sys.argv[2], sys.argv[3]
marks = [("interpreter start (site)", time.process_time())]
def dump():
    with open(f"{out}/phases-{os.getpid()}.json", "w") as file:
        json.dump(marks, file)
_exit = posix._exit
def timed_exit(code):
    marks.append(("end and exit", time.process_time()))
    dump()
    _exit(code)
os._exit = timed_exit
import atexit
atexit.register(lambda: (marks.append(("serve (idle) and exit", time.process_time())), dump()))
import importlib
from errorkb.verify.inside import child, observer
target = importlib.import_module(module_name)
marks.append(("the verifier's own modules", time.process_time()))
def wrap(owner, name, label):
    original = getattr(owner, name)
    @functools.wraps(original)
    def wrapper(*args, **kwargs):
        marks.append(("-", time.process_time()))
        try:
            return original(*args, **kwargs)
        finally:
            marks.append((label, time.process_time()))
    setattr(owner, name, wrapper)
wrap(child, "prepare", "child.prepare (runtime, target, backends)")
wrap(child, "preload", "preloads")
wrap(observer, "snapshot_trusted", "observer.snapshot_trusted")
wrap(observer, "snapshot_tables", "observer.snapshot_tables")
wrap(observer, "snapshot_kernel_tables", "observer.snapshot_kernel_tables")
wrap(observer, "install", "observer.install")
sys.argv = [module_name, argument]
sys.exit(target.main([argument]))
'''


def stand_in(folder: Path, python: str) -> Path:
    """An executable the harness takes for an interpreter: `python -P -m MODULE ARG` runs the stand-in instead."""
    program = folder / "stand_in.py"
    program.write_text(STAND_IN)
    script = folder / "python"
    script.write_text("#!/bin/sh\n# -P -m MODULE ARG\n"
                      f'exec "{python}" -P "{program}" "{folder}" "$3" "$4"\n')
    script.chmod(0o755)
    return script


def stages(folder: Path) -> dict[str, list[float]]:
    """Each stage's CPU seconds, per process that wrote its marks (a stage met twice in one process is summed)."""
    found: dict[str, list[float]] = collections.defaultdict(list)
    for path in glob.glob(str(folder / "phases-*.json")):
        marks, last, own = json.loads(Path(path).read_text()), 0.0, collections.Counter()
        for label, seconds in marks:
            if label != "-":
                own[label] += seconds - last
            last = seconds
        for label, seconds in own.items():
            found[label].append(seconds)
        os.unlink(path)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--entry", default="head-dim-list-length")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()

    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.core.snippets import Role, read_snippet
    from errorkb.verify.plan import Check, source_module
    from errorkb.verify.pool import Zygote
    from errorkb.verify.run import run_check

    project = load_project(ROOT)
    entry = next(one.entry for one in load_project_entries(project).entries if one.entry.id == args.entry)
    path = project.snippet_path(entry.id, "after.py")
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu",
                  source_module(entry, project.library))
    tables = {}
    with tempfile.TemporaryDirectory(prefix="errorkb-phases-") as scratch:
        folder = Path(scratch)
        python = stand_in(folder, args.python)
        for _ in range(args.n):
            run_check(check, project.library, 120, python, None)
        tables["a fresh interpreter per check (subprocess mode): one check"] = stages(folder)
        for _ in range(args.n):
            zygote = Zygote("bundled", "cpu", check.module, [], folder, project.library, python)
            deadline = time.monotonic() + 600
            while not zygote.ready and zygote.error is None and time.monotonic() < deadline:
                time.sleep(0.1)
            zygote.close()
        tables["a zygote (fork mode), ready to fork: once per run"] = stages(folder)
    print(f"{args.python}, {args.entry} after, bundled, cpu, no sandbox; median of {args.n}, CPU seconds of the "
          f"process itself; load average {os.getloadavg()[0]:.1f}")
    for title, found in tables.items():
        total = sum(statistics.median(values) for values in found.values())
        print(f"\n{title}: {total:.3f} s")
        for label, values in found.items():
            median = statistics.median(values)
            print(f"  {median:7.3f} s  {median / total:5.1%}  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
