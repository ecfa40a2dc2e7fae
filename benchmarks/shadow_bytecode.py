"""What the shadow's bytecode saves a fresh interpreter: a subprocess-mode check with the shadow as it was (sources
alone) and with the `.pyc` of each keyed source, side by side.

    .venv/bin/python benchmarks/shadow_bytecode.py [--n 8] [--full]

A check is shown of errorkb and of the bundled package only the files its key holds, through read-only shadows
(`sandbox.package_shadow`, `Sandbox.keyed`). Until they held bytecode, each fresh interpreter (one per check in
subprocess mode, one per zygote in fork mode) compiled errorkb's verdict sources and the bundled package from
source. This runs the same sandboxed subprocess-mode check (the broken fixture's `good-head-dim` after, bundled
target, CPU) `--n` times in each shadow, alternating, in the lean environment the tests use (tests/lean.py; `--full`:
this one, with hqq), and prints the median CPU and wall time of one check in each and their ratio, and how many
modules each interpreter loaded from the shadow's bytecode (`python -v`'s "code object from"): the editable
install's finder and the import folder both read the shadow, whatever wins (the shadow is bound over both).

CPU is read from a cgroup this process joins (benchmarks/check_start.py's `Meter`): the sandboxed checks live in
another PID namespace and never reach `RUSAGE_CHILDREN`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.check_start import Meter  # noqa: E402
from errorkb.core.project import load_project  # noqa: E402
from errorkb.core.snippets import Role, read_snippet  # noqa: E402
from errorkb.plugs import runtime_for  # noqa: E402
from errorkb.verify import sandbox as sandbox_module  # noqa: E402
from errorkb.verify.plan import Check  # noqa: E402
from errorkb.verify.run import run_check  # noqa: E402
from tests.lean import lean_environment  # noqa: E402
from tests.verify.verifykb import FIXTURE, load_kb  # noqa: E402

MODULE = "transformers.cache_utils"


@contextmanager
def shadows(bytecode: bool) -> Iterator[None]:
    """Every shadow made anew, with its bytecode or (as before) without."""
    real = sandbox_module._bytecode
    sandbox_module._shadow.cache_clear()
    sandbox_module.package_shadow.cache_clear()
    if not bytecode:
        sandbox_module._bytecode = lambda source, data: None  # type: ignore[assignment]
    try:
        yield
    finally:
        sandbox_module._bytecode = real  # type: ignore[assignment]
        sandbox_module._shadow.cache_clear()
        sandbox_module.package_shadow.cache_clear()


def loaded_from_bytecode(sandbox: sandbox_module.Sandbox, python: Path, bundled: str) -> int:
    """How many modules of errorkb and of the bundled package one sandboxed interpreter loaded from bytecode."""
    top = bundled.split(".")[0]
    argv = [str(python), "-v", "-c", f"import errorkb.verify.inside.child, {bundled}"]
    done = subprocess.run(sandbox.wrap(argv, device="cpu", writable=[], python=python), capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)
    return sum(line.startswith("# code object from '") and line.endswith(".pyc'") and "__editable__" not in line
               and ("/errorkb/" in line or f"/{top}/" in line) for line in done.stderr.splitlines())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=8, help="checks in each shadow")
    parser.add_argument("--full", action="store_true", help="this environment (with hqq), not the lean one")
    args = parser.parse_args()
    why = sandbox_module.probe()
    if why is not None:
        print(f"the sandbox cannot be created here: {why}", file=sys.stderr)
        return 1
    project = load_project(FIXTURE)
    library, runtime = project.library, runtime_for("torch")
    assert library.bundled is not None
    meter = Meter()
    try:
        with tempfile.TemporaryDirectory(prefix="errorkb-shadow-bench-") as folder:
            root = Path(folder, "kb")
            shutil.copytree(FIXTURE / "snippets" / "good-head-dim", root / "snippets" / "good-head-dim")
            python = Path(sys.executable) if args.full else lean_environment(Path(folder, "lean"))
            entry = next(one.entry for one in load_kb(FIXTURE)[1] if one.entry.id == "good-head-dim")
            path = root / "snippets" / "good-head-dim" / "after.py"
            check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", MODULE)
            sandbox = sandbox_module.choose(
                "require", [root], [], runtime=runtime, packages=("torch", "transformers", library.bundled.split(".")[0]),
                env_prefixes=tuple(library.env_prefixes), private=[root / "snippets"], keyed=(library.bundled,))
            assert sandbox is not None
            spent: dict[bool, list[tuple[float, float]]] = {False: [], True: []}
            loads: dict[bool, int] = {}
            for bytecode in (False, True):
                with shadows(bytecode):
                    loads[bytecode] = loaded_from_bytecode(sandbox, python, library.bundled)
            for _ in range(args.n):
                for bytecode in (False, True):
                    with shadows(bytecode):
                        sandbox_module.package_shadow()  # the shadows' making is the harness's, once per process
                        for _, _, files in sandbox.keyed:
                            sandbox_module._shadow(files)
                        cpu, wall = meter.seconds(), time.perf_counter()
                        run = run_check(check, library, 120, python, sandbox)
                        spent[bytecode].append((meter.seconds() - cpu, time.perf_counter() - wall))
                        if run.returncode != 0 or run.observation is None:
                            raise SystemExit(f"the check did not run: {run.output[-2000:]}")
    finally:
        meter.close()
    cpu = {bytecode: statistics.median(one[0] for one in spent[bytecode]) for bytecode in spent}
    wall = {bytecode: statistics.median(one[1] for one in spent[bytecode]) for bytecode in spent}
    print(f"one sandboxed subprocess-mode check ({'this environment' if args.full else 'lean environment'}), "
          f"median of {args.n}, load average {os.getloadavg()[0]:.1f}"
          f"{'' if meter.file else ' (RUSAGE_CHILDREN: misses what ran in the sandbox)'}:")
    for bytecode, label in ((False, "shadow, sources alone (before)"), (True, "shadow with their bytecode (after)")):
        print(f"  {label:36} {cpu[bytecode]:6.2f} s CPU  {wall[bytecode]:6.2f} s wall  "
              f"errorkb/bundled modules loaded from bytecode: {loads[bytecode]}")
    print(f"  before / after: {cpu[False] / cpu[True]:.2f}x CPU, {wall[False] / wall[True]:.2f}x wall; "
          f"{cpu[False] - cpu[True]:.2f} s CPU saved per fresh interpreter")
    return 0


if __name__ == "__main__":
    sys.exit(main())
