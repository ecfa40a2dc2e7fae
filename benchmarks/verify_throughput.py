"""Throughput of `errorkb verify`: warm pool, with and without the sandbox, vs `python snippet.py` per check.

    .venv/bin/python benchmarks/verify_throughput.py [--n 60] [--jobs 2] [--sandbox both|require|off]

Builds a synthetic knowledge base of N checks (N/4 entries × before, after and two guards, each
snippet slightly different), then, in one run:

1. pool:   `errorkb verify --no-cache` over the same checks (fork from a warm zygote, same
           isolation: fresh process, own process group, timeout, output cap, memory limit), as a
           command, so its start-up (loading entries, starting the zygote) is counted; once with
           `--sandbox off` and once with `--sandbox require` (bubblewrap, a jail per check), side by
           side: the whole run, and the median time of one check (request to exit);
2. naive:  `python snippet.py` for every CPU check, a fresh interpreter each (imports torch and
           transformers every time), `--jobs` at a time, each in its own session with a timeout;
3. cache:  `errorkb verify` twice with a fresh cache folder: the first run fills it, the
           second (warm) must answer every check from it.

Each figure is given twice: wall-clock seconds, and the CPU seconds (user + system) of every
process the run started: the CLI, bwrap, the zygote, each check. On a busy machine the wall clock
measures the other work as much as this one; CPU time does not, so the ratios are printed for
both, side by side. CPU time is read from a cpuacct cgroup each command starts in (as root, cgroup
v1's cpuacct or v2's cpu.stat): a process in the sandbox is in another PID namespace, and what its
init reaps never reaches `RUSAGE_CHILDREN` here. Elsewhere the figure is `RUSAGE_CHILDREN`, which
misses the sandboxed processes; the line says which.

Both sides run against the upstream `transformers` (what `python snippet.py` imports), each
from compiled bytecode, as an installed package is (errorkb's own `.pyc` files are written first:
this checkout may run with PYTHONDONTWRITEBYTECODE, which would make every errorkb process compile
its sources again). Prints the figures and the ratios; exits 1 if a check did not pass or a goal
(the sandboxed pool ≥ 50× faster than `python snippet.py`, a warm re-run under 0.3 s) was missed,
so the figures cannot be quoted from a broken run.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ERRORKB = [sys.executable, "-m", "errorkb.cli"]
ROOT = Path(__file__).resolve().parent.parent
MESSAGE = ("`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
           "{len(self.layers)} layers")
PRELUDE = """import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers={layers}, num_attention_heads=4, num_key_value_heads=4, hidden_size=256)
cache = DynamicCache(config=config)
device = "cuda" if torch.cuda.is_available() else "cpu"
"""
SNIPPETS = {
    "before.py": "cache.early_initialization(1, 4, [64] * {short}, torch.float32, device)\n",
    "after.py": "cache.early_initialization(1, 4, config.head_dim, torch.float32, device)\nassert cache.is_initialized\n",
    "guard_lengths.py": (
        "DynamicCache(config=config).early_initialization(1, 4, config.head_dim, torch.float32, device)\n"
        "head_dim = [64] * {short}\n"
        "if len(head_dim) != len(cache.layers):\n"
        "    raise ValueError(f'head_dim has {{len(head_dim)}} values for {{len(cache.layers)}} layers')\n"
        "cache.early_initialization(1, 4, head_dim, torch.float32, device)\n"),
    "guard_from_cache.py": "cache.early_initialization(1, 4, [config.head_dim] * len(cache.layers), torch.float32, device)\n",
}
ENTRY = """id: {id}
title: Synthetic check {number}
library: huggingface/transformers
exception: ValueError
message: "{message}"
source:
  commit: a597f974857b3d92939971296bc0deb93d33d780
  path: src/transformers/cache_utils.py
  line: 1471
  function: Cache.early_initialization
meaning: A synthetic entry for the throughput benchmark.
trigger: A head_dim list of the wrong length.
situations: [Benchmarking.]
solutions:
  - title: Pass an int.
prevention: [Use an int.]
guards:
  - title: Check lengths
    strategy: validation
    file: guard_lengths.py
    expect: {{outcome: raises, exception: ValueError, message: "head_dim has {{n}} values for {{m}} layers"}}
  - title: From the cache
    strategy: construction
    file: guard_from_cache.py
    expect: {{outcome: passes}}
"""



def library_profile() -> str:
    """The knowledge base's `[tool.errorkb.library]` table, as the project's pyproject.toml states it."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r"(?ms)^\[tool\.errorkb\.library\]\n.*?(?=^\[|\Z)", text)
    assert found, "pyproject.toml has no [tool.errorkb.library]"
    return found.group()

def build(root: Path, n: int) -> list[Path]:
    (root / "pyproject.toml").write_text("[tool.errorkb]\ntimeout = 60\n\n" + library_profile(), encoding="utf-8")
    entries = root / "docs/errors/transformers"
    entries.mkdir(parents=True)
    snippets = []
    for number in range((n + 3) // 4):
        entry_id = f"synthetic-{number:03d}"
        layers = 2 + number % 12
        (entries / f"{entry_id}.yml").write_text(ENTRY.format(id=entry_id, number=number, message=MESSAGE.replace('"', '\\"')))
        folder = root / "snippets" / entry_id
        folder.mkdir(parents=True)
        for name, body in SNIPPETS.items():
            # a distinct text per snippet: identical snippets of identical entries share a cache key
            text = f"# synthetic {number}\n" + PRELUDE.format(layers=layers) + body.format(short=max(1, layers - 1))
            (folder / name).write_text(text)
            snippets.append(folder / name)
    return snippets[:n]


class CpuMeter:
    """CPU seconds of everything the commands it wraps start, wherever it runs (see the module doc)."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.usage = ""
        for mount, usage in (("/sys/fs/cgroup/cpuacct", "cpuacct.usage"), ("/sys/fs/cgroup", "cpu.stat")):
            for stale in Path(mount).glob("errorkb-bench-*"):  # of an interrupted run (its benchmark is gone)
                if not Path("/proc", stale.name.removeprefix("errorkb-bench-")).exists():
                    try:
                        stale.rmdir()  # refused while a process it started is still in it
                    except OSError:
                        pass
            folder = Path(mount) / f"errorkb-bench-{os.getpid()}"
            try:
                folder.mkdir()
            except OSError:
                continue
            if (folder / usage).is_file():
                self.folder, self.usage = folder, usage
                break
            folder.rmdir()
        self.how = f"CPU from the cgroup {self.folder}" if self.folder else \
            "CPU from RUSAGE_CHILDREN (no cgroup here: misses what runs in the sandbox)"

    def wrap(self, argv: list[str]) -> list[str]:
        """`argv`, started inside the meter's cgroup (its children stay there, in any namespace)."""
        if self.folder is None:
            return argv
        return ["sh", "-c", f'echo $$ > {self.folder}/cgroup.procs && exec "$@"', "sh", *argv]

    def seconds(self) -> float:
        if self.folder is None:
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            return used.ru_utime + used.ru_stime
        text = (self.folder / self.usage).read_text()
        if self.usage == "cpu.stat":
            return int(text.split("usage_usec", 1)[1].split()[0]) / 1e6
        return int(text) / 1e9

    def close(self) -> None:
        if self.folder is not None:
            self.folder.rmdir()


METER = CpuMeter()


def children_cpu() -> float:
    """CPU seconds of every process the wrapped commands started so far (user + system)."""
    return METER.seconds()


def naive(snippets: list[Path], jobs: int) -> tuple[float, float, int]:
    """`python snippet.py` per check, as isolated as the pool: own session, timeout, CUDA hidden."""
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", PYTHONHASHSEED="0")

    def one(snippet: Path) -> int:
        done = subprocess.run(METER.wrap([sys.executable, snippet.name]), cwd=snippet.parent, env=env, capture_output=True,
                              timeout=120, start_new_session=True)
        return done.returncode

    started, cpu = time.perf_counter(), children_cpu()
    with ThreadPoolExecutor(jobs) as threads:
        codes = list(threads.map(one, snippets))
    return time.perf_counter() - started, children_cpu() - cpu, sum(1 for code in codes if code in (0, 1))


def verify(root: Path, jobs: int, *extra: str) -> tuple[float, float, dict]:
    """(wall seconds, CPU seconds of the whole process tree, the report) of one `errorkb verify`."""
    report = root / "reports" / f"run-{time.monotonic_ns()}.json"
    started, cpu = time.perf_counter(), children_cpu()
    done = subprocess.run(METER.wrap([*ERRORKB, "--root", str(root), "verify", "--target", "upstream", "--device",
                                      "cpu", "--jobs", str(jobs), "--report", str(report), *extra]),
                          capture_output=True, text=True)
    elapsed, used = time.perf_counter() - started, children_cpu() - cpu
    data = json.loads(report.read_text())
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], file=sys.stderr)
    return elapsed, used, data


def median_ms(report: dict) -> float:
    durations = sorted(record["duration_s"] for record in report["checks"] if record.get("duration_s"))
    return 1000 * durations[len(durations) // 2] if durations else float("nan")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=60, help="checks (the goal is measured at 60)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--sandbox", choices=["both", "require", "off"], default="both",
                        help="pool runs to make: with the sandbox, without, or both side by side (default)")
    parser.add_argument("--skip-naive", action="store_true", help="only the pool and cache runs (no ratio)")
    args = parser.parse_args()
    compileall.compile_dir(ROOT / "errorkb", quiet=1, force=False)  # as `pip install` leaves it
    with tempfile.TemporaryDirectory(prefix="errorkb-bench-") as folder:
        root = Path(folder)
        snippets = build(root, args.n)
        print(f"{len(snippets)} checks (cpu, upstream transformers), {args.jobs} at a time, {os.cpu_count()} CPUs, "
              f"load average {os.getloadavg()[0]:.1f}; {METER.how}")

        modes = ["off", "require"] if args.sandbox == "both" else [args.sandbox]
        pools = {}
        for mode in modes:
            pools[mode] = verify(root, args.jobs, "--no-cache", "--sandbox", mode)
            seconds, cpu, report = pools[mode]
            print(f"errorkb verify, warm pool, no cache, sandbox {mode:>7}: {seconds:8.2f} s wall, {cpu:7.2f} s CPU  "
                  f"({report['run']['isolation']}; one check: median {median_ms(report):6.1f} ms)  {report['summary']}")
        if len(pools) == 2:
            off, on = pools["off"], pools["require"]
            print(f"the sandbox's cost: {(on[0] - off[0]) / len(snippets) * 1000:+.1f} ms wall, "
                  f"{(on[1] - off[1]) / len(snippets) * 1000:+.1f} ms CPU per check over the whole run, "
                  f"{median_ms(on[2]) - median_ms(off[2]):+.1f} ms on the median check")
        ratios: dict[str, tuple[float, float]] = {}
        if not args.skip_naive:
            naive_s, naive_cpu, finished = naive(snippets, args.jobs)
            print(f"python snippet.py per check:            {naive_s:8.2f} s wall, {naive_cpu:7.2f} s CPU  "
                  f"({naive_s / len(snippets) * 1000:.0f} ms wall, {naive_cpu / len(snippets) * 1000:.0f} ms CPU per "
                  f"check; {finished}/{len(snippets)} ran to an exit code)")
            for mode, (seconds, cpu, _) in pools.items():
                ratios[mode] = (naive_s / seconds, naive_cpu / cpu)
                one = naive_s / len(snippets) * args.jobs  # wall time of one `python snippet.py`, `jobs` side by side
                print(f"ratio, sandbox {mode:>7}: {ratios[mode][0]:.1f}× faster in wall time, {ratios[mode][1]:.1f}× "
                      f"in CPU time than python snippet.py (goal ≥ 50× with the sandbox); the whole run took as "
                      f"long as {seconds / one:.2f} python snippet.py (its zygote imports what each of them imports)")

        cache = root / "cache"
        fill_s, fill_cpu, fill = verify(root, args.jobs, "--cache-dir", str(cache))
        ran = sum(1 for record in fill["checks"] if not record.get("cached"))
        warm_s, warm_cpu, warm = verify(root, args.jobs, "--cache-dir", str(cache))
        hits = sum(1 for record in warm["checks"] if record.get("cached"))
        print(f"cache fill run: {fill_s:.2f} s wall, {fill_cpu:.2f} s CPU ({ran} checks ran); warm cache run: "
              f"{warm_s:.2f} s wall, {warm_cpu:.2f} s CPU, {hits}/{len(warm['checks'])} checks from the cache "
              "(goal < 0.3 s)")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} (other work on the machine slows both sides: "
          "compare the CPU figures)")
    passed = all(report["summary"]["pass"] == len(snippets) for _, _, report in pools.values())
    fast = all(wall >= 50 for mode, (wall, _) in ratios.items() if mode == "require")
    ok = passed and fast and warm_s < 0.3 and hits == len(snippets)
    print("goals met" if ok else "GOALS NOT MET (or a check failed)")
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        code = main()
    finally:
        METER.close()
    sys.exit(code)
