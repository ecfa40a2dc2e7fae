"""One observer scenario's CPU (tests/verify/test_observer.py: `run_scenario`), forked from a test process that imported
what a worker of the full tier imports, beside the same scenario forked from the lean parent (tests/verify/lean_parent.py).

    .venv/bin/python benchmarks/observer_fork.py [--n 20]

Each line is the mean CPU seconds (user + system, this process and every process it waited for; the lean parent's
own, read from /proc, included) of one scenario, and its ratio to the lean parent's: a clean run of `lib.work`, and
the same with `import torch` in the snippet (the lean parent that preloaded torch, as the verifier's zygote has).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def _cpu() -> float:
    """CPU of this process, the children it waited for and the ones still running (the lean parents)."""
    times = os.times()
    total = times.user + times.system + times.children_user + times.children_system
    for child in Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split():
        fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def _mean(run, n: int) -> float:
    run()  # the first: a lean parent starts, the library is written
    before = _cpu()
    for _ in range(n):
        run()
    return (_cpu() - before) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20)
    n = parser.parse_args().n
    started = time.monotonic()
    import hypothesis  # noqa: F401  # what a full-tier worker has imported by the time it runs these cases
    import mkdocs.commands.build  # noqa: F401
    import playwright.sync_api  # noqa: F401
    import torch  # noqa: F401

    from tests.verify import lean_parent
    from tests.verify.test_observer import run_scenario

    folder = Path(tempfile.mkdtemp(prefix="observer-fork-"))
    rows = []
    for label, body in (("clean run", "lib.work(1)\n"), ("import torch", "import torch\nlib.work(1)\n")):
        lean = _mean(lambda body=body: run_scenario(folder, body), n)
        lean_parent.SERVING = True  # run_scenario forks right here, from this big process, as it did before
        try:
            fat = _mean(lambda body=body: run_scenario(folder, body), n)
        finally:
            lean_parent.SERVING = False
        rows.append((label, fat, lean))
    print(f"{'scenario':14} {'from the worker':>16} {'from the lean parent':>21} {'ratio':>7}")
    for label, fat, lean in rows:
        print(f"{label:14} {fat:14.3f} s {lean:19.3f} s {fat / lean:6.1f}x")
    print(f"({n} scenarios each, {time.monotonic() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
