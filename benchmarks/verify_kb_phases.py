"""Where the knowledge base's own uncached verify (the suite's `kb_report`) spends its CPU, phase by phase.

    .venv/bin/python benchmarks/verify_kb_phases.py [--sandbox require] [--tree OTHER_CHECKOUT] [IDS...]

Runs `verify(both targets, cpu, no cache)` of this checkout's knowledge base in a fresh interpreter (the suite's
fixture does the same, cuda included: those are "not run" without a device and cost nothing), with the tree's
errorkb first on the path, and splits the CPU seconds of every process it started (a cpuacct cgroup: sandboxed
ones too) into: the harness (planning, the sandbox's probe, reading and judging, the report), the checks' own
CPU (each forked check's, as its zygote reaped it: the snippet, the observer, the jail's set-up after the fork),
and the rest (starting the zygotes and stems: the interpreter, the runtime and the library imported once each,
bwrap). Prints each zygote started (its key, wall seconds to ready) and the checks' CPU per target and release,
heaviest first. With `--tree`, the other checkout's errorkb is measured the same way first, side by side.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter

# The environment's interpreter by its real folder: the sandbox cannot mount a path through a link (a worktree's
# `.venv` linked to another checkout's), and a check it could not set up is no figure.
PYTHON = Path(sys.prefix).resolve() / "bin" / Path(sys.executable).name

ONE_RUN = """
import json, resource, sys, threading, time
from pathlib import Path
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify import pool
from errorkb.verify.engine import verify

root, sandbox, out, ids = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:] or None
spent, zygotes, lock = [], [], threading.Lock()
run = pool.WorkerPool.run
def counted(self, check, *args, **kwargs):
    done = run(self, check, *args, **kwargs)
    with lock:
        spent.append((check.entry.id, check.target, check.release or "", done.cpu_s or 0.0))
    return done
pool.WorkerPool.run = counted
init = pool.Zygote.__init__
def started(self, *args, **kwargs):
    init(self, *args, **kwargs)
    begun = time.monotonic()
    def wait():
        self.hello.wait(900)
        with lock:
            zygotes.append([repr(self.key[0:2] + self.key[3:]), round(time.monotonic() - begun, 2),
                            self.stem is not None])
    threading.Thread(target=wait, daemon=True).start()
pool.Zygote.__init__ = started
stems = []
stem_init = pool.Stem.__init__
def stem_started(self, *args, **kwargs):
    stem_init(self, *args, **kwargs)
    stems.append(str(args[0]))
pool.Stem.__init__ = stem_started
project = load_project(Path(root))
begun = time.monotonic()
report = verify(project, load_project_entries(project).entries, ids=ids, targets=["bundled", "upstream"],
                devices=["cpu"], sandbox=sandbox)
wall = time.monotonic() - begun
me = resource.getrusage(resource.RUSAGE_SELF)
json.dump({"spent": spent, "zygotes": zygotes, "stems": stems, "wall": wall, "harness": me.ru_utime + me.ru_stime,
           "isolation": (report.run or {}).get("isolation"),
           "verdicts": {c.id: [str(c.outcome), str(c.code)] for c in report.checks}}, open(out, "w"))
"""


def links(tree: Path, folder: Path) -> str:
    """A folder of links to `tree`'s errorkb and bundled package: a worktree's own, where the environment installed
    another checkout's bundled package (the sandbox shows the package the import path finds)."""
    from errorkb.core.project import load_project

    bundled = (load_project(ROOT).library.bundled or "").split(".")[0]
    (folder / "path").mkdir()
    for name in filter(None, ["errorkb", bundled]):
        if (tree / name).is_dir():
            (folder / "path" / name).symlink_to(tree / name)
    return str(folder / "path")


def once(tree: Path, sandbox: str, ids: list[str], meter: Meter) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.json"
        env = {**os.environ, "PYTHONPATH": links(tree, Path(folder))}
        before = meter.seconds()
        done = subprocess.run([str(PYTHON), "-c", ONE_RUN, str(ROOT), sandbox, str(out), *ids], env=env, cwd=tree,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the run with {tree}'s errorkb failed:\n{done.stderr[-3000:]}")
        return meter.seconds() - before, json.loads(out.read_text())


def show(label: str, total: float, data: dict) -> None:
    checks = sum(cpu for *_, cpu in data["spent"])
    rest = total - data["harness"] - checks
    failed = sorted(check for check, (outcome, _) in data["verdicts"].items() if outcome == "fail")
    if failed:
        raise SystemExit(f"{label}: {len(failed)} checks failed, so no figure: {', '.join(failed[:5])}")
    print(f"\n{label}: {len(data['spent'])} checks run, {data['wall']:.1f} s wall, {total:.1f} s CPU in all "
          f"({data['isolation']})")
    print(f"  {data['harness']:8.1f} s  the harness (plan, probe, read, judge, report)")
    print(f"  {checks:8.1f} s  the checks' own CPU ({checks / max(len(data['spent']), 1) * 1000:.0f} ms each)")
    print(f"  {rest:8.1f} s  the rest: {len(data['zygotes'])} zygotes and {len(data['stems'])} stems started, bwrap")
    per = collections.defaultdict(lambda: [0, 0.0])
    for _, target, release, cpu in data["spent"]:
        per[(target, release)][0] += 1
        per[(target, release)][1] += cpu
    print("  checks' CPU per target and release:")
    for (target, release), (n, cpu) in sorted(per.items(), key=lambda item: -item[1][1]):
        print(f"    {cpu:7.1f} s  {n:4d} checks  {target} {release}")
    heavy = collections.defaultdict(float)
    for entry, _, _, cpu in data["spent"]:
        heavy[entry] += cpu
    print("  the ten entries whose checks cost the most CPU:")
    for entry, cpu in sorted(heavy.items(), key=lambda item: -item[1])[:10]:
        print(f"    {cpu:7.2f} s  {entry}")
    print("  zygotes (key, wall seconds to ready, from a stem):")
    for key, seconds, stemmed in sorted(data["zygotes"], key=lambda z: -z[1]):
        print(f"    {seconds:6.1f} s  {'stem ' if stemmed else '     '} {key}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sandbox", default="require", choices=("off", "auto", "require"))
    parser.add_argument("--tree", type=Path, help="another errorkb checkout, measured first (the baseline)")
    parser.add_argument("ids", nargs="*")
    args = parser.parse_args()
    meter = Meter()
    trees = {"baseline": args.tree.resolve()} if args.tree else {}
    trees["this"] = ROOT
    results = {}
    try:
        for label, tree in trees.items():
            results[label] = once(tree, args.sandbox, args.ids, meter)
            show(f"{label} ({tree})", *results[label])
    finally:
        meter.close()
    if not meter.file:
        print("(RUSAGE_CHILDREN: what ran in the sandbox is missing)")
    if len(results) == 2:
        (old, old_data), (new, new_data) = results["baseline"], results["this"]
        print(f"\nCPU in all: baseline {old:.1f} s, this {new:.1f} s, ratio {old / new:.2f}; the same outcome and code "
              f"for all {len(new_data['verdicts'])} checks: {old_data['verdicts'] == new_data['verdicts']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
