"""How much memory does reading a report or matrix file take, per byte on disk?

    .venv/bin/python benchmarks/report_memory.py [--sizes 2,8,30] [--cap]

For each size (MiB), writes a verification report and a version-matrix file of about that size,
made of this repository's own records (reports/latest.json, reports/matrix/transformers.json)
repeated under new entry names, and reads each in a fresh process the way the site and the CLI
do (`read_report`, `load_matrix`). Prints side by side the file's size, the reading process's
peak resident memory above what it held before the read, and their ratio: the ratio times
`store.MAX_BYTES` is what the largest file errorkb accepts costs the build. With `--cap`, also
reads a file past `store.MAX_BYTES` and prints its (refused) cost: bounded, not read.

Exits 1 if a read fails, so the figures cannot be quoted from a broken run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from errorkb.results import store  # noqa: E402

_CHILD = """
import sys
from pathlib import Path
from errorkb.results import matrix, report, store
def peak():  # VmHWM, in kB: the getrusage figure keeps the forking parent's peak across exec
    return int(next(line for line in open("/proc/self/status") if line.startswith("VmHWM")).split()[1])
before = peak()
try:
    read = report.read_report if sys.argv[1] == "report" else matrix.load_matrix
    read(Path(sys.argv[2]))
    said = "read"
except store.Unreadable as error:
    said = "refused: " + str(error)[-60:]
after = peak()
print((after - before) * 1024, said)
"""


def grown(kind: str, size: int) -> str:
    """A file of `kind` ('report' or 'matrix') of about `size` bytes, this repository's records repeated."""
    source = ROOT / ("reports/latest.json" if kind == "report" else "reports/matrix/transformers.json")
    data = json.loads(source.read_text())
    key = "checks" if kind == "report" else "results"
    originals = data[key]
    per_record = len(json.dumps(data, indent=1)) / len(originals)  # as written below
    records = []
    for copy in range(max(1, int(size / per_record / len(originals)) + 1)):
        for record in originals:
            renamed = dict(record, entry=f"{record['entry']}-{copy}")
            if kind == "report":
                renamed["id"] = renamed["id"].replace(record["entry"], renamed["entry"], 1)
            records.append(renamed)
            if len(records) * per_record >= size:
                break
        if len(records) * per_record >= size:
            break
    data[key] = records
    if kind == "report":
        data.pop("summary", None)
    return json.dumps(data, indent=1)


def measure(kind: str, path: Path) -> tuple[int, str]:
    done = subprocess.run([sys.executable, "-c", _CHILD, kind, str(path)], capture_output=True, text=True,
                          cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        sys.exit(f"reading {path} failed:\n{done.stderr}")
    grew, said = done.stdout.split(" ", 1)
    return int(grew), said.strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="2,8,30", help="file sizes in MiB, comma-separated")
    parser.add_argument("--cap", action="store_true", help="also read a file past store.MAX_BYTES")
    args = parser.parse_args()
    print(f"store.MAX_BYTES = {store.MAX_BYTES / 2**20:.0f} MiB")
    print(f"{'file':8} {'on disk':>10} {'peak memory':>12} {'ratio':>6}  result")
    with tempfile.TemporaryDirectory() as folder:
        for kind in ("report", "matrix"):
            for mib in (float(size) for size in args.sizes.split(",")):
                path = Path(folder) / f"{kind}.json"
                path.write_text(grown(kind, int(mib * 2**20)))
                size = path.stat().st_size
                grew, said = measure(kind, path)
                print(f"{kind:8} {size / 2**20:8.1f} MiB {grew / 2**20:8.0f} MiB {grew / size:6.1f}  {said}")
                if said != "read" and size <= store.MAX_BYTES:
                    sys.exit(f"a {kind} file within the cap was not read: {said}")
            if args.cap:
                path = Path(folder) / f"{kind}.json"
                path.write_text(grown(kind, store.MAX_BYTES))
                with path.open("a") as out:
                    out.write(" " * (store.MAX_BYTES + 1 - path.stat().st_size))
                grew, said = measure(kind, path)
                print(f"{kind:8} {path.stat().st_size / 2**20:8.1f} MiB {grew / 2**20:8.0f} MiB {'':6}  {said}")
                if said == "read":
                    sys.exit("a file past the cap was read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
