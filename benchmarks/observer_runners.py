"""The observer's install in a check that names torch, with the runtime's runners stood in for (round fifteen:
TorchScript's compilers, the RPC agent's start) beside the same install without them (as before), side by side.

    .venv/bin/python benchmarks/observer_runners.py [--n 40]

A process that imported torch (as a CPU zygote has) forks 2 N times, the two ways alternating; each fork builds the
config a scenario of tests/verify/test_observer.py builds, with torch's held state (`TorchRuntime.held_state`), and
times `observer.install` (CPU of the fork, `time.process_time`, and wall; the median of N), then says how many
stand-ins it put in place. The callback rule's change (code compiled for the snippet, told by who compiled it) costs
nothing where no untrusted code starts inside a call, which is every honest check that declares no callback.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


def _install(way: str, folder: Path) -> tuple[float, float, int]:
    """In a fresh fork: (CPU ms, wall ms, stand-ins) of one install, `way` 'with runners' or 'without (before)'."""
    from tests.verify.lean_parent import fork_and_return

    def install() -> tuple[float, float, int]:
        import torch

        from errorkb.plugs import runtime_for
        from errorkb.verify.inside import observer, seal
        from tests.verify.test_observer import _config

        sys.path.insert(0, str(folder))
        import lib  # type: ignore[import-not-found]

        _, write_end = os.pipe()
        _, key_write = os.pipe()
        config = _config(lib, folder, write_end, None)
        config["sealer"] = seal.handover(key_write)
        held = runtime_for("torch").held_state(torch)
        config["held"] = held if way == "with runners" else held._replace(runners=())
        cpu, wall = time.process_time(), time.perf_counter()
        observer.install(config)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        stood = config["held"]
        return cpu * 1000, wall * 1000, len(stood.registrars) + len(stood.frame_hooks) + len(stood.runners)

    measured = fork_and_return(install)
    if measured is None:
        raise RuntimeError(f"the fork ({way}) died before it measured")
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    n = parser.parse_args().n
    import torch  # noqa: F401  # what a CPU zygote has imported

    from tests.verify.test_observer import LIBRARY

    folder = Path(tempfile.mkdtemp(prefix="observer-runners-"))
    (folder / "lib.py").write_text(LIBRARY)
    ways = ("without (before)", "with runners")
    times: dict[str, list[tuple[float, float, int]]] = {way: [] for way in ways}
    for _ in range(n):
        for way in ways:
            times[way].append(_install(way, folder))
    before = statistics.median(cpu for cpu, _, _ in times[ways[0]])
    print(f"{'install':18} {'CPU ms (median)':>16} {'wall ms (median)':>17} {'stand-ins':>10} {'CPU ratio':>10}")
    for way in ways:
        cpu = statistics.median(each[0] for each in times[way])
        wall = statistics.median(each[1] for each in times[way])
        print(f"{way:18} {cpu:16.2f} {wall:17.2f} {times[way][0][2]:10d} {cpu / before:9.2f}x")
    print(f"({n} forks each way, alternating; load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main()
