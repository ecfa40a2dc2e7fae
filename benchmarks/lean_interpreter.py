"""What this project's tools cost every interpreter the tests start in the lean environment, side by side in one run.

    .venv/bin/python benchmarks/lean_interpreter.py [--n 5]

`tests/lean.py`'s `lean_environment` makes the tests' interpreter (`lean_python`: every zygote and fresh check of the
tests that ask for it, and the adversarial runs'): a hard-linked copy of this environment less hqq, and now less
`TOOLS` too. Both are made here (`tools=True`: as `lean_python` was; the default: as it is), then, alternately, N
times each: a fresh `python -c "import torch, transformers_errorkb.kvcache"` (what every zygote and fresh check of a
fixture imports first, `child.prepare`; the bundled cache's `_compat` reads `packages_distributions()`, a walk over
every installed distribution's file list). Printed: the median CPU seconds (user + system) of that interpreter, and
the CPU this process spent making each environment (paid once per test process).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

IMPORTS = "import torch, transformers_errorkb.kvcache"


def _cpu(who: int) -> float:
    used = resource.getrusage(who)
    return used.ru_utime + used.ru_stime


def _spent() -> float:
    return _cpu(resource.RUSAGE_SELF) + _cpu(resource.RUSAGE_CHILDREN)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5)
    args = parser.parse_args()
    from tests.lean import TOOLS, lean_environment

    with tempfile.TemporaryDirectory() as folder:
        pythons, made = {}, {}
        for name, tools in (("with TOOLS (before)", True), ("without TOOLS (now)", False)):
            started = _spent()
            pythons[name] = lean_environment(Path(folder) / name.split()[0], tools=tools)
            made[name] = _spent() - started
            if pythons[name] == Path(sys.executable):
                print("hard links refused here: no lean environment to compare", file=sys.stderr)
                return 1
        spent: dict[str, list[float]] = {name: [] for name in pythons}
        for _ in range(args.n):
            for name, python in pythons.items():
                started = _cpu(resource.RUSAGE_CHILDREN)
                subprocess.run([str(python), "-c", IMPORTS], check=True, cwd="/")
                spent[name].append(_cpu(resource.RUSAGE_CHILDREN) - started)
    print(f"lean environments of {sys.prefix} (less hqq; {len(TOOLS)} TOOLS), `{IMPORTS}`, median of {args.n}, "
          "CPU (user + system)")
    base = statistics.median(spent["with TOOLS (before)"])
    for name, values in spent.items():
        median = statistics.median(values)
        print(f"  {name:20} one interpreter {median:6.3f} s  {base / median:5.2f}x   making the environment "
              f"{made[name]:5.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
