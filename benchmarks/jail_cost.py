"""What one jail costs, stage by stage: the per-check work of the sandbox, measured where the zygote does it.

    .venv/bin/python benchmarks/jail_cost.py [--n 40] [--torch]

Starts a process in the sandbox exactly as the zygote is started (`Sandbox.wrap(..., jails=True)`)
and there, N times each, side by side: a plain fork whose child exits at once, and a jailed one
(`Jail.open` before the fork, `Jail.enter` in the child, `release` after the reap), each stage timed
(the child's own stage is sent back on a pipe). `--torch` imports torch first, so the forks copy a
zygote-sized address space. The check's snippet folder holds `--files` files and a folder (its working folder,
`jail.working_folder`, binds each read-only). Prints the median of each stage in milliseconds, and the working
folder's share of the jailed total.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

INSIDE = r'''
import json, os, sys, time
from errorkb.verify.inside import jail as J
n, folder, heavy, snippet = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", sys.argv[4]
if heavy:
    import torch  # noqa: F401
parts = {}


def timed(name, function):
    def wrapper(*args, **kwargs):
        a = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            label = name + (f" {args[0]}" if name in ("libc", "_write") else "")
            parts[label] = parts.get(label, 0.0) + time.perf_counter() - a
    return wrapper


for _name in ("_mount", "_hide_proc", "drop_capabilities", "_bind_back", "mount_points_under", "_write",
              "working_folder"):
    setattr(J, _name, timed(_name, getattr(J, _name)))
J._libc_call = timed("libc", J._libc_call)
stages = {k: [] for k in ("plain fork+exit+reap", "open", "fork (parent)", "enter (child)", "child exit to reap",
                          "release", "jailed total")}
for i in range(n):
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    stages["plain fork+exit+reap"].append(time.perf_counter() - t0)
for i in range(n):
    sub = os.path.join(folder, f"c{i}")
    os.mkdir(sub)
    read, write = os.pipe()
    t0 = time.perf_counter()
    jail = J.Jail.open(os.path.join(sub, "output.txt"), 30, folder)
    t1 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        a = time.perf_counter()
        parts.clear()
        jail.enter((write,), snippet=snippet)
        took = time.perf_counter() - a
        os.write(write, json.dumps({"enter": took, "parts": parts, "exit_at": time.perf_counter()}).encode())
        os._exit(0)
    t2 = time.perf_counter()
    os.close(write)
    jail.adopt(pid)
    data = b""
    while chunk := os.read(read, 4096):
        data += chunk
    os.close(read)
    os.waitpid(pid, 0)
    t3 = time.perf_counter()
    J.release(pid)
    t4 = time.perf_counter()
    seen = json.loads(data)
    stages["open"].append(t1 - t0)
    stages["fork (parent)"].append(t2 - t1)
    stages["enter (child)"].append(seen["enter"])
    stages["child exit to reap"].append(t3 - seen["exit_at"])
    stages["release"].append(t4 - t3)
    stages["jailed total"].append(t4 - t0)
    for label, value in seen["parts"].items():
        stages.setdefault("  in enter: " + label, []).append(value)
print(json.dumps(stages))
'''


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--torch", action="store_true", help="import torch first (a zygote-sized fork)")
    parser.add_argument("--files", type=int, default=4, help="files in the check's snippet folder (and one folder)")
    args = parser.parse_args()
    from errorkb.verify.sandbox import Sandbox, probe, runtime_paths

    why = probe()
    if why is not None:
        print(f"the sandbox cannot be created here: {why}", file=sys.stderr)
        return 1
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory(prefix="errorkb-jail-cost-") as folder, \
            tempfile.TemporaryDirectory(prefix="errorkb-jail-snippet-") as snippet:
        for index in range(args.files):
            Path(snippet, f"file{index}.py").write_text("x = 1\n")
        Path(snippet, "data").mkdir()
        sandbox = Sandbox("bwrap", runtime_paths([root, Path(snippet)], ("torch",)))
        argv = [sys.executable, "-c", INSIDE, str(args.n), folder, "1" if args.torch else "0", snippet]
        done = subprocess.run(sandbox.wrap(argv, device="cpu", writable=[Path(folder)], jails=True),
                              capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-3000:], file=sys.stderr)
            return 1
        stages = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{args.n} forks each, {'after importing torch' if args.torch else 'a small process'}, "
          f"load average {os.getloadavg()[0]:.1f}; medians:")
    for name, values in stages.items():
        print(f"  {statistics.median(values) * 1000:8.2f} ms  {name}")
    work, total = (statistics.median(stages[name]) for name in ("  in enter: working_folder", "jailed total"))
    print(f"the working folder ({args.files} files and a folder): {work * 1000:.2f} ms of {total * 1000:.2f} ms "
          f"jailed total ({work / total:.1%}); the jailed total is {total / statistics.median(stages['plain fork+exit+reap']):.1f}x a plain fork")
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"({time.perf_counter() - started:.1f} s)")
    sys.exit(code)
