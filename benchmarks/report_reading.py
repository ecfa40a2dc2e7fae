"""Reading a verification report of 10^5 records, as the site and the CLI do: before and after, side by side.

    .venv/bin/python benchmarks/report_reading.py [--before REF] [--records 100000] [--n 3]

Writes a report of `--records` records (this repository's reports/latest.json, its records repeated under new entry
names, short ones where cut; each record cut to the fields a check that did not run has, `reason` and `expected` to
24 characters, so that 10^5 of them fit under `store.MAX_BYTES`), and a second one of the records whole, as many as fit
under the cap.
Each is read by `read_reports` (the site's and `errorkb verify`'s reader: `read_report`, then the records' dates,
devices and environments) in a fresh process, by the errorkb of git ref `--before` (default af09264) and by this
checkout's, alternately, `--n` times each. Each line: the median CPU seconds of the reading (`time.process_time`:
a busy machine changes it less than wall time), and the ratio after / before.

Every read must return every record, the same in both (their count and the digest of their JSON), or the benchmark
stops: a faster reader that read less is no result.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from errorkb.results import store  # noqa: E402

_CHILD = """
import hashlib, sys, time
from pathlib import Path
from errorkb.results import report
started = time.process_time()
reports, problems = report.read_reports(Path(sys.argv[1]), ["cpu", "cuda"])
spent = time.process_time() - started
checks = [check for one in reports for check in one.checks]
digest = hashlib.sha256("".join(check.model_dump_json() for check in checks).encode()).hexdigest()[:16]
print(spent, len(checks), digest, len(problems))
"""


# A record cut to what a record that did not run says (its `reason` and `expected` to 24 characters): 10^5 of them fit
# under the cap.
_CUT = ("id", "entry", "role", "snippet", "target", "device", "outcome", "code", "reason", "expected", "verified_at",
        "cached")


def report_text(records: int | None, cut: bool) -> tuple[str, int]:
    """A report of `records` records (None: as many whole records as fit under the cap), and how many it holds."""
    data = json.loads((ROOT / "reports" / "latest.json").read_text(encoding="utf-8"))
    originals = data.pop("checks")
    data.pop("summary", None)
    lines: list[str] = []
    size, copy = 2_000, 0
    entries: dict[str, int] = {}  # cut: an entry's short name
    while records is None or len(lines) < records:
        for record in originals:
            entry = f"e{entries.setdefault(record['entry'], len(entries))}-{copy}" if cut else \
                f"{record['entry']}-{copy}"
            renamed = dict(record, entry=entry, id=record["id"].replace(record["entry"], entry, 1),
                           snippet=record["snippet"].replace(record["entry"], entry, 1))
            if cut:
                renamed = {key: value[:24] if key in ("reason", "expected") else value
                           for key, value in renamed.items() if key in _CUT}
            line = json.dumps(renamed, ensure_ascii=False, separators=(",", ":"))
            if records is None and size + len(line.encode()) + 2 > store.MAX_BYTES or len(lines) == records:
                break
            lines.append(line)
            size += len(line.encode()) + 2
        else:
            copy += 1
            continue
        break
    header = json.dumps(data, indent=1, ensure_ascii=False).removesuffix("\n}")
    return header + ',\n"checks": [\n' + ",\n".join(lines) + "\n]\n}\n", len(lines)


def read(code: Path, folder: Path) -> tuple[float, int, str]:
    done = subprocess.run([sys.executable, "-c", _CHILD, str(folder)], capture_output=True, text=True, cwd=code,
                          env={**os.environ, "PYTHONPATH": str(code)})
    if done.returncode != 0:
        sys.exit(f"reading {folder} with {code} failed:\n{done.stderr[-3000:]}")
    spent, count, digest, _ = done.stdout.split()
    return float(spent), int(count), digest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", default="af09264")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--n", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="errorkb-report-reading-") as temporary:
        old = Path(temporary) / "before"
        old.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.before, "errorkb"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
        rows = []
        for name, records, cut in (("records cut", args.records, True), ("records whole", None, False)):
            folder = Path(temporary) / name.replace(" ", "-")
            folder.mkdir()
            text, count = report_text(records, cut)
            (folder / "latest.json").write_text(text, encoding="utf-8")
            times: dict[str, list[float]] = {"before": [], "after": []}
            said: set[tuple[int, str]] = set()
            for _ in range(args.n):
                for which, code in (("before", old), ("after", ROOT)):
                    spent, read_count, digest = read(code, folder)
                    if read_count != count:
                        sys.exit(f"{which} read {read_count} of the {count} records")
                    times[which].append(spent)
                    said.add((read_count, digest))
            if len(said) != 1:
                sys.exit(f"before and after read different records: {said}")
            size = (folder / "latest.json").stat().st_size
            rows.append((f"{count:,} {name} ({size / 2**20:.1f} MiB)", statistics.median(times["before"]),
                         statistics.median(times["after"])))
    print(f"read_reports, {args.n} run(s) each, median CPU seconds; before = {args.before}; "
          f"load {os.getloadavg()[0]:.1f}")
    print(f"{'':40} {'before':>8} {'after':>8} {'after / before':>15}")
    for name, before, after in rows:
        print(f"{name:40} {before:8.2f} {after:8.2f} {after / before:15.2f}")


if __name__ == "__main__":
    main()
