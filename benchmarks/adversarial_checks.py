"""Where the adversarial fixture's run spends its CPU, check by check and attack by attack, in one isolation mode.

    .venv/bin/python benchmarks/adversarial_checks.py [--isolation subprocess|fork] [--top 20] [--entries ID ...]
    .venv/bin/python benchmarks/adversarial_checks.py --entries ID ... --against REV [--rounds 3]

Runs the mode's run as test_adversarial.py's fixture does (`Workspace.verify`: a throwaway copy, the lean
environment, the sandbox required, the mode's attacks and the honest controls, on its `TARGETS`, no cache) and
reads each check's own CPU (bwrap with everything in it) from a cpuacct cgroup the check's process joins before it
starts: a wrapper of `run_check` in the throwaway copy of errorkb makes one per check and logs it (the repository's
errorkb is not changed; `Run.cpu_s`, `wait4`'s, cannot see into the sandbox's PID namespace). A fork-mode check is
its pool's and is not logged: its line reads "not logged". The rest of the run's CPU (read from a cgroup this
process joins, `check_start.Meter`) is the harness's: the CLI, planning, the judge, the report.

Printed: the run's total CPU and wall; the harness's share; the honest controls' median per check (a check that
does nothing an attack adds: interpreter start, the runtime's import, the observer, the sandbox); each attack's
checks, their CPU and what they cost beyond that median (the attack itself); the load average before and after.
For the fixed stages of one check (interpreter, runtime import, bwrap) see benchmarks/check_start.py.

Measured (session 62, 2 CPUs shared, load average 9.9 before, 12.5 after): subprocess mode, 135 checks, 279.8 s of
CPU, 615 s wall. The harness 4.0 s (0.03 s a check); an honest control's check 1.77 s (median of 18, 1.65-2.14), so
135 checks of nothing cost 239 s (85%); of one such check (lean environment, median of 3, load 24:
benchmarks/check_start.py's stages) bwrap and the jail 0.14 s, `site` 0.05, the verifier's own modules 0.06, torch
1.97, the bundled package 0.38, the rest the observer and the snippet. The attacks beyond an honest check: 36.5 s
(13%), of which forged-type-name 13.7 (its after and guard 8.3 s each: the observer's search of what the snippet
handed the call), beneath-installed-package 9.9 (urllib3 first imported under the snippet: each module body
followed), patched-verifier-source 3.7, every other attack 1.6 or less. No check ran out of time or spun: the largest
used 8.4 s of its 120. Fork mode (load 15-23): 450 checks, 100 s of CPU, 369 s wall; tracer-recursion's six checks
are 173 s of the checks' summed wall time (their loop loses the tracer at depth 982 of 1000, after 103 recursions
from 880), no other attack's six more than 38.

`--against REV`: this checkout's observer beside REV's (`git show`, put in the throwaway copy in its place) on the
`--entries`, each way a run of its own, `--rounds` rounds, the ways alternating; per entry the median CPU of its
checks each way and their ratio, the load average's range beside; outcomes that differ between the ways are named.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.check_start import Meter  # noqa: E402
from tests.verify.adversarial import TARGETS, Workspace, attacks, control_ids  # noqa: E402

OBSERVER = "errorkb/verify/inside/observer.py"

# Appended to the throwaway copy's errorkb/verify/run.py: the engine imports `run_check` from the module at each call.
# Each check's process joins a cpuacct cgroup of its own (under the meter's, so that the total still holds it) before
# it runs bwrap: `wait4` cannot see into the sandbox's PID namespace (its init reaps what runs there).
LOGGER = '''

import subprocess as _subprocess
import threading as _threading

_measured = _threading.local()


class _JoiningSubprocess:
    def __getattr__(self, name):
        return getattr(_subprocess, name)

    def Popen(self, *args, **kwargs):  # noqa: N802
        folder = _measured.folder

        def join():
            with open(folder + "/cgroup.procs", "w") as procs:
                procs.write(str(os.getpid()))

        return _subprocess.Popen(*args, preexec_fn=join, **kwargs)


subprocess = _JoiningSubprocess()
_unmeasured_run_check = run_check


def run_check(check, *args, **kwargs):  # benchmarks/adversarial_checks.py
    import json as _json
    _measured.folder = folder = {cgroups!r} + "/check-" + str(time.monotonic_ns())
    os.mkdir(folder)
    ran = _unmeasured_run_check(check, *args, **kwargs)
    with open(folder + "/cpuacct.usage") as usage:
        cpu = int(usage.read()) / 1e9
    try:
        os.rmdir(folder)
    except OSError:
        pass
    with open({log!r}, "a") as _log:
        _log.write(_json.dumps({{"id": check.id, "cpu_s": cpu, "wall_s": ran.duration_s,
                                 "timed_out": ran.timed_out, "returncode": ran.returncode}}) + "\\n")
    return ran
'''


def sweep(cgroups: Path) -> None:
    """The checks' cgroups a process was still leaving as its check's was removed (so that the meter's own can go)."""
    for folder in cgroups.glob("check-*"):
        for _ in range(40):
            try:
                folder.rmdir()
                break
            except OSError:
                time.sleep(0.05)


def run_once(meter: Meter, isolation: str, ids: list[str], observer: str | None = None) -> dict:
    """One run of the mode over `ids` in a fresh workspace (its copy's observer replaced by `observer` where given):
    its outcome, each check's logged CPU, the run's CPU and wall, the load average around it."""
    if meter.file is None or meter.file.name != "cpuacct.usage":
        raise SystemExit("needs a cpuacct cgroup (cgroup v1, as root) to read each sandboxed check's CPU")
    with tempfile.TemporaryDirectory(prefix="errorkb-adversarial-checks-") as folder:
        workspace = Workspace(Path(folder))
        log = Path(folder) / "checks.jsonl"
        run_py = workspace.package / "errorkb" / "verify" / "run.py"
        run_py.write_text(run_py.read_text() + LOGGER.format(log=str(log), cgroups=str(meter.file.parent)))
        if observer is not None:
            (workspace.package / OBSERVER).write_text(observer, encoding="utf-8")
        try:
            workspace.python  # noqa: B018  (the lean environment, made before the meter counts)
            load_before = os.getloadavg()[0]
            cpu, wall = meter.seconds(), time.perf_counter()
            outcome = workspace.verify(isolation=isolation, sandbox="require", ids=ids, cache=False,
                                       targets=TARGETS[isolation], timeout_per_check=30 if isolation == "fork" else 120)
            cpu, wall = meter.seconds() - cpu, time.perf_counter() - wall
            logged = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        finally:
            workspace.close()
            sweep(meter.file.parent)
    if outcome.report is None or outcome.timed_out:
        raise SystemExit(f"the run gave no report (exit {outcome.returncode}): {outcome.stderr[-1000:]}")
    return {"outcome": outcome, "logged": logged, "cpu": cpu, "wall": wall, "load": (load_before, os.getloadavg()[0])}


def compare(meter: Meter, args: argparse.Namespace, ids: list[str]) -> int:
    """This checkout's observer beside `args.against`'s on `ids`, `args.rounds` rounds, the ways alternating."""
    old = subprocess.run(["git", "-C", str(ROOT), "show", f"{args.against}:{OBSERVER}"], check=True,
                         capture_output=True, text=True).stdout
    spent: dict[str, dict[str, list[float]]] = {"this": collections.defaultdict(list), args.against: collections.defaultdict(list)}
    loads, outcomes = [], {}
    for round_ in range(args.rounds):
        for way in (("this", args.against) if round_ % 2 == 0 else (args.against, "this")):
            ran = run_once(meter, args.isolation, ids, None if way == "this" else old)
            loads.append(ran["load"])
            entry_of = {record["id"]: record["entry"] for record in ran["outcome"].records.values()}
            for entry in set(entry_of.values()):
                spent[way][entry].append(sum(line["cpu_s"] for line in ran["logged"] if entry_of.get(line["id"]) == entry))
            spent[way]["(the run)"].append(ran["cpu"])
            for record in ran["outcome"].records.values():
                outcomes.setdefault(record["id"], {})[way] = record["outcome"]
    print(f"{args.isolation}-mode adversarial checks, sandboxed, this checkout's observer beside {args.against}'s, "
          f"{args.rounds} rounds alternating; load average {min(min(pair) for pair in loads):.2f}-"
          f"{max(max(pair) for pair in loads):.2f} ({os.cpu_count()} CPUs); median CPU seconds of each entry's checks")
    print(f"  {'entry':34} {'this':>8} {args.against:>10} {'ratio':>7}")
    for entry in sorted(spent["this"]):
        new, before = statistics.median(spent["this"][entry]), statistics.median(spent[args.against][entry])
        print(f"  {entry:34} {new:8.2f} {before:10.2f} {new / before:7.2f}x")
    differ = sorted(check for check, ways in outcomes.items() if len(set(ways.values())) > 1)
    if differ:
        print(f"  outcomes differ between the ways: {differ}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--isolation", choices=list(TARGETS), default="subprocess")
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--entries", nargs="+", help="these attacks only (and no controls)")
    parser.add_argument("--against", help="a revision whose observer runs beside this checkout's (with --rounds)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ids = args.entries or attacks(args.isolation) + control_ids()
    meter = Meter()
    try:
        if args.against:
            return compare(meter, args, ids)
        ran = run_once(meter, args.isolation, ids)
    finally:
        meter.close()
    outcome, logged, cpu, wall = ran["outcome"], ran["logged"], ran["cpu"], ran["wall"]
    load_before, load_after = ran["load"]
    by_id = {line["id"]: line for line in logged}
    entry_of = {record["id"]: record["entry"] for record in outcome.records.values()}
    controls = set(control_ids())
    checked = sum(line["cpu_s"] or 0 for line in logged)
    control_cpu = [line["cpu_s"] for line in logged if entry_of.get(line["id"]) in controls and line["cpu_s"]]
    base = statistics.median(control_cpu) if control_cpu else float("nan")
    print(f"{args.isolation}-mode adversarial run, sandboxed, targets {', '.join(TARGETS[args.isolation])}, no cache; "
          f"load average {load_before:.2f} before, {load_after:.2f} after ({os.cpu_count()} CPUs)")
    print(f"  {len(outcome.records)} checks, {cpu:.1f} s CPU in all{'' if meter.file else ' (RUSAGE_CHILDREN)'}, "
          f"{wall:.1f} s wall; the checks' own processes {checked:.1f} s ({len(logged)} logged), the harness "
          f"{cpu - checked:.1f} s ({(cpu - checked) / max(len(outcome.records), 1):.2f} s/check)")
    print(f"  an honest control's check: median {base:.2f} s CPU over {len(control_cpu)} "
          f"(min {min(control_cpu, default=0):.2f}, max {max(control_cpu, default=0):.2f})")
    per_entry: dict[str, list[dict]] = collections.defaultdict(list)
    for check_id, entry in entry_of.items():
        record = outcome.records[check_id]  # not logged (a pool's check): its wall time from the report
        per_entry[entry].append(by_id.get(check_id) or {"id": check_id, "cpu_s": None, "wall_s": record.get("duration_s"),
                                                        "timed_out": (record.get("exit") or {}).get("timed_out")})
    rows = sorted(((sum(line["cpu_s"] or 0 for line in lines), entry, lines) for entry, lines in per_entry.items()
                   if entry not in controls), reverse=True,
                  key=lambda row: (row[0], sum(line["wall_s"] or 0 for line in row[2])))
    print(f"  {'attack':34} {'checks':>6} {'CPU s':>7} {'beyond':>7} {'max wall':>8} {'sum wall':>8}  notes")
    for total, entry, lines in rows[:args.top]:
        beyond = total - base * len(lines)
        notes = sorted({f"timed out ({line['id']})" for line in lines if line.get("timed_out")} |
                       {"not logged" for line in lines if line["cpu_s"] is None})
        print(f"  {entry:34} {len(lines):6d} {total:7.1f} {beyond:7.1f} "
              f"{max((line['wall_s'] or 0) for line in lines):8.1f} {sum((line['wall_s'] or 0) for line in lines):8.1f}"
              f"  {', '.join(notes)}")
    rest = rows[args.top:]
    if rest:
        print(f"  ... {len(rest)} more attacks, {sum(total for total, _, _ in rest):.1f} s CPU")
    attack_checks = sum(len(lines) for _, _, lines in rows)
    attack_cpu = sum(total for total, _, _ in rows)
    print(f"  attacks: {attack_checks} checks, {attack_cpu:.1f} s CPU, of which {attack_cpu - base * attack_checks:.1f} s "
          f"beyond an honest check's; controls: {len(control_cpu)} checks, {sum(control_cpu):.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
