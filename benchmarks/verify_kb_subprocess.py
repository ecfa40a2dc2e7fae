"""The knowledge base's subprocess-isolation test, its old sample beside its new one: CPU seconds, in one run.

    .venv/bin/python benchmarks/verify_kb_subprocess.py [--sandbox require]

The old sample: every upstream cpu check of the test's four entries (12 fresh interpreters); the new one
(`tests/test_knowledge_base.py: SUBPROCESS_SAMPLE`): one check per class (4). Each runs in a fresh interpreter of
this tree's errorkb (`verify_kb_phases.links`), its CPU read from a cgroup (`check_start.Meter`: sandboxed processes
too); prints both, their ratio, and each run's outcomes (a figure from a run with a failing check means nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter
from verify_kb_phases import PYTHON, links

sys.path.insert(0, str(ROOT))
from tests.test_knowledge_base import SUBPROCESS_SAMPLE

ONE_RUN = """
import json, sys
from pathlib import Path
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify.engine import verify
root, sandbox, out, sample = sys.argv[1], sys.argv[2], sys.argv[3], json.loads(sys.argv[4])
project = load_project(Path(root))
entries = load_project_entries(project).entries
checks = [c for kinds, ids in sample for c in verify(project, entries, ids=ids, targets=["upstream"], devices=["cpu"],
          kinds=kinds, isolation="subprocess", sandbox=sandbox).checks]
json.dump({c.id: str(c.outcome) for c in checks}, open(out, "w"))
"""


def once(sample: list, sandbox: str, meter: Meter) -> tuple[float, dict]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "out.json"
        env = {**os.environ, "PYTHONPATH": links(ROOT, Path(folder))}
        before = meter.seconds()
        done = subprocess.run([str(PYTHON), "-c", ONE_RUN, str(ROOT), sandbox, str(out), json.dumps(sample)], env=env,
                              cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if done.returncode != 0:
            raise SystemExit(f"the run failed:\n{done.stderr[-3000:]}")
        return meter.seconds() - before, json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sandbox", default="require", choices=("off", "auto", "require"))
    args = parser.parse_args()
    old = [[None, [entry for ids in SUBPROCESS_SAMPLE.values() for entry in ids]]]
    new = [[[kind], ids] for kind, ids in SUBPROCESS_SAMPLE.items()]
    meter = Meter()
    try:
        (old_cpu, old_outcomes), (new_cpu, new_outcomes) = once(old, args.sandbox, meter), once(new, args.sandbox, meter)
    finally:
        meter.close()
    for label, cpu, outcomes in (("old sample", old_cpu, old_outcomes), ("new sample", new_cpu, new_outcomes)):
        print(f"{label}: {len(outcomes)} checks, {cpu:.1f} s CPU, outcomes {sorted(set(outcomes.values()))}")
    print(f"ratio {old_cpu / new_cpu:.2f}" + ("" if meter.file else " (RUSAGE_CHILDREN: the sandbox's missing)"))
    passed = {"pass"} == set(old_outcomes.values()) == set(new_outcomes.values())
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
