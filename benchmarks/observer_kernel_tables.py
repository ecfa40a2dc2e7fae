"""The runtime's kernel tables (`HeldState.tables`, round eighteen), per check: what taking them costs (once in the
zygote, `observer.snapshot_kernel_tables`, or at install where no zygote took them) and what one diff costs
(`_p_kernel_tables_written`, at every planted search: each error that starts in C code under a watched call),
beside the planted search's other roots and a whole check's time.

    .venv/bin/python benchmarks/observer_kernel_tables.py [--n 40] [--check-ms 250]

A process that imported what a CPU zygote of this knowledge base imports (torch, the bundled package) takes the
tables and freezes what it made, as a zygote does; then it forks N checks (the copy-on-write faults of reading the
zygote's take are the check's). In each, timed alone (the median of N): binding the zygote's take at install,
a diff with nothing written, a diff after (both in CPU ms, `time.process_time`) torch's Python dispatcher filled operators' caches (an export's way), and,
for scale, taking the tables at install (where no zygote took them: a check run as a subprocess). `--check-ms`: a
whole check's wall time to compare with (most of the knowledge base's CPU checks record 0.12-0.46 s in
`reports/latest.json`, its export checks 1-3 s); the ratio printed is (check + 3 diffs) / check.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
import types
from typing import Any


def _private(observer: Any, name: str, state: dict[str, Any]) -> Any:
    """The observer's private function `name` over its own module's globals and a private state `state`."""
    function = vars(observer)[name]
    return types.FunctionType(function.__code__, {**vars(observer), "_S": state}, name)


def _check() -> tuple[float, float, float, float, int, int]:
    """In a fresh fork: wall ms of binding the zygote's take, CPU ms of a diff with nothing written and of one after
    the dispatcher filled caches (the machine's other work out of them), wall ms of taking the tables at install; how many dicts are taken, how many roots the last diff found."""
    import torch

    from errorkb.plugs.torch import RUNTIME
    from errorkb.verify.inside import observer

    held = RUNTIME.held_state(torch)
    memory = observer._memory()
    started = time.perf_counter()
    state = {"kernel_tables": observer._kernel_tables(held, observer._COPIES["kernel_tables"], memory),
             "memory": memory}
    bind = time.perf_counter() - started
    written = _private(observer, "_p_kernel_tables_written", state)
    found: list[Any] = []
    started = time.process_time()
    written(found)
    idle = time.process_time() - started
    assert found == [], found[:4]
    with torch._C._EnablePythonDispatcher():
        torch.nn.functional.linear(torch.zeros(2, 3), torch.zeros(4, 3)).relu().sum()
    started = time.process_time()
    written(found)
    filled = time.process_time() - started
    started = time.perf_counter()
    fresh = observer._kernel_tables(held, None, memory)
    take = time.perf_counter() - started
    assert fresh is not None
    return bind * 1000, idle * 1000, filled * 1000, take * 1000, len(fresh[0]), len(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40)
    parser.add_argument("--check-ms", type=float, default=250.0)
    arguments = parser.parse_args()
    import torch

    import transformers_errorkb.kvcache  # noqa: F401  # what a CPU zygote has imported
    from errorkb.plugs.torch import RUNTIME
    from errorkb.verify.inside import observer
    from tests.verify.lean_parent import fork_and_return

    started = time.perf_counter()
    observer.snapshot_kernel_tables(RUNTIME.held_state(torch))
    once = (time.perf_counter() - started) * 1000
    gc.freeze()
    measured = []
    for _ in range(arguments.n):
        result = fork_and_return(_check)
        if result is None:
            raise RuntimeError("a check's fork died before it measured")
        measured.append(result)
    bind, idle, filled, take = (statistics.median(row[index] for row in measured) for index in range(4))
    dicts, roots = measured[0][4], statistics.median(row[5] for row in measured)
    print(f"{'kernel tables, per check':34} {'ms (median)':>17}")
    print(f"{'zygote take, once':34} {once:17.2f}")
    print(f"{'install: bind the zygote take':34} {bind:17.3f}")
    print(f"{'install: take (no zygote)':34} {take:17.2f}")
    print(f"{'diff, nothing written (CPU)':34} {idle:17.3f}")
    print(f"{'diff, caches filled (CPU)':34} {filled:17.3f}   ({roots:.0f} roots found)")
    check = arguments.check_ms
    print(f"{dicts} dicts taken; a {check:.0f} ms check with 3 diffs: ratio {(check + bind + 3 * idle) / check:.3f}x "
          f"(nothing written), {(check + bind + 3 * filled) / check:.3f}x (caches filled); {arguments.n} checks")


if __name__ == "__main__":
    main()
