"""Where a fresh check process's CPU goes (`--isolation subprocess`): its imports, stage by stage, beside one check.

    .venv/bin/python benchmarks/check_start.py [--n 5] [--python PATH] [--entry ID]

Each line is a fresh interpreter (`--python`, default this one), run N times; the median CPU seconds
(user + system) of everything it started, and its ratio to `python -c pass`:

1. `python -c pass`: the interpreter's own start, the floor;
2. `import torch`: the runtime;
3. `+ optimum.quanto`: the profile's backend (with `transformers` hidden, as there), which the child imports with the library hidden before it
   activates the bundled target (`inside/library.py: _import_backends_without`);
4. `importlib.metadata.packages_distributions()` alone (minus `import importlib.metadata`): what the bundled
   cache's `_compat` computes when it is imported, a walk over every installed distribution's file list;
5. `import transformers_errorkb.kvcache` (torch and, where hqq is installed, hqq's quantizer with
   torch._dynamo and torch._inductor, as upstream does); then the same with the cyclic collector off meanwhile,
   as the check's process imports them (`child.prepare`);
6. one check of the repository's knowledge base (`--entry`'s `after`, bundled, cpu) as `run_check` runs it:
   a fresh `python -m errorkb.verify.inside.child`, without the sandbox, then in it (bubblewrap, the jail);
7. the sandboxed check's phases, each line the one before plus one stage, run as `run_check` runs a check (bwrap
   with the check's mounts, its jail's launcher, then the command): `/bin/true` (bwrap's own set-up), the
   launcher's jail around `python -S -c pass` (no `site`), `python -c pass` (`site`: the environment's `.pth`
   files), the check's own modules (`errorkb.verify.inside.child`), `import torch`, the bundled package; what
   is left of the whole check beyond that last line is the observer's set-up, the snippet and the report back.

CPU is read from a cpuacct cgroup this process joins (root, cgroup v1 or v2): the sandboxed processes live
in another PID namespace and never reach `RUSAGE_CHILDREN`. Elsewhere the sandboxed line says it is missing.
The bytecode of every module is read from its `__pycache__` (measured with `python -v`: torch's 997 modules
are loaded as `code object from ...pyc`); errorkb's and the bundled package's are compiled first, as the tests do.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Meter:
    """CPU seconds of this process's children, sandboxed ones included where a cgroup can be joined."""

    def __init__(self) -> None:
        self.file: Path | None = None
        self.parent: Path | None = None
        for mount, usage in (("/sys/fs/cgroup/cpuacct", "cpuacct.usage"), ("/sys/fs/cgroup", "cpu.stat")):
            folder = Path(mount) / f"errorkb-check-start-{os.getpid()}"
            try:
                folder.mkdir()
                (folder / "cgroup.procs").write_text(str(os.getpid()))
            except OSError:
                if folder.is_dir():
                    folder.rmdir()
                continue
            self.file, self.parent = folder / usage, Path(mount)
            break

    def seconds(self) -> float:
        if self.file is None:
            used = resource.getrusage(resource.RUSAGE_CHILDREN)
            return used.ru_utime + used.ru_stime
        text = self.file.read_text()
        if self.file.name == "cpu.stat":
            return int(text.split("usage_usec", 1)[1].split()[0]) / 1e6
        return int(text) / 1e9  # includes this process: the caller only waits meanwhile

    def close(self) -> None:
        if self.file is not None and self.parent is not None:
            (self.parent / "cgroup.procs").write_text(str(os.getpid()))
            for _ in range(40):  # refused while a process started here is still ending
                try:
                    self.file.parent.rmdir()
                    break
                except OSError:
                    time.sleep(0.05)


def median_cpu(meter: Meter, n: int, run) -> float:  # type: ignore[no-untyped-def]
    spent = []
    for _ in range(n):
        before = meter.seconds()
        run()
        spent.append(meter.seconds() - before)
    return statistics.median(spent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--entry", default="head-dim-list-length")
    args = parser.parse_args()
    for package in ("errorkb", "transformers_errorkb"):
        compileall.compile_dir(str(ROOT / package), quiet=1)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", CUDA_VISIBLE_DEVICES="")

    def python(code: str):  # type: ignore[no-untyped-def]
        return lambda: subprocess.run([args.python, "-c", code], env=env, check=True, capture_output=True)

    meter = Meter()
    rows: list[tuple[str, float]] = []
    try:
        for label, code in (("python -c pass", "pass"),
                            ("import torch", "import torch"),
                            ("+ optimum.quanto (the library hidden)",
                             "import sys, torch; sys.modules['transformers'] = None; import optimum.quanto"),
                            ("import importlib.metadata", "import importlib.metadata"),
                            ("  + packages_distributions()",
                             "import importlib.metadata; importlib.metadata.packages_distributions()"),
                            ("import transformers_errorkb.kvcache", "import transformers_errorkb.kvcache"),
                            ("  the same, the collector off meanwhile (child.prepare)",
                             "import gc; gc.disable(); import transformers_errorkb.kvcache; gc.enable()")):
            rows.append((label, median_cpu(meter, args.n, python(code))))
        rows += check_rows(meter, args)
    finally:
        meter.close()
    floor = rows[0][1]
    print(f"{args.python}, median of {args.n}, CPU (user + system) of every process started"
          f"{'' if meter.file else ' (RUSAGE_CHILDREN: the sandboxed line misses what ran in the sandbox)'}")
    for label, seconds in rows:
        print(f"  {label:48} {seconds:7.3f} s  {seconds / floor:6.1f}x python -c pass")
    return 0


def check_rows(meter: Meter, args: argparse.Namespace) -> list[tuple[str, float]]:
    """One check of the knowledge base, as `run_check` runs it: plain, then in the sandbox."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.core.snippets import Role, read_snippet
    from errorkb.plugs import runtime_for
    from errorkb.verify.judge import judge
    from errorkb.verify.plan import Check, source_module
    from errorkb.verify.run import run_check
    from errorkb.verify.sandbox import choose

    project = load_project(ROOT)
    entry = next(one.entry for one in load_project_entries(project).entries if one.entry.id == args.entry)
    path = project.snippet_path(entry.id, "after.py")
    check = Check(entry, read_snippet(path, Role("after"), path.name), "bundled", "cpu", source_module(entry, project.library))
    runtime = runtime_for(project.library.runtime)
    box = choose("require", [project.root], [project.root / ".errorkb-cache", project.root / "reports"],
                 runtime=runtime, packages=(runtime.packages[0], project.library.name, *project.library.backends),
                 env_prefixes=tuple(project.library.env_prefixes))
    python = Path(args.python)
    rows = []
    for label, sandbox in (("one check, fresh interpreter, no sandbox", None), ("one check, in the sandbox", box)):
        def one(sandbox=sandbox, label=label) -> None:  # type: ignore[no-untyped-def]
            run = run_check(check, project.library, 120, python, sandbox)
            outcome = judge(check, run, runtime).outcome
            if outcome != "pass":
                raise SystemExit(f"{check.entry.id} after: {outcome} ({label}), so its figure would mean nothing")
        rows.append((label, median_cpu(meter, args.n, one)))
    return rows + phase_rows(meter, args, box, python, project.library)


def phase_rows(meter: Meter, args: argparse.Namespace, box, python: Path, library) -> list[tuple[str, float]]:  # type: ignore[no-untyped-def]
    """The sandboxed check's start, one stage more per line (see the module's docstring, 7)."""
    import tempfile

    from errorkb.verify.inside import jail

    bundled = library.bundled or "transformers_errorkb.kvcache"
    stages = (("  sandbox: bwrap + /bin/true", ["/bin/true"], False),
              ("  + jail launcher + python -S -c pass", [str(python), "-S", "-c", "pass"], True),
              ("  + site (python -c pass)", [str(python), "-c", "pass"], True),
              ("  + the child's own modules", [str(python), "-c", "import errorkb.verify.inside.child"], True),
              ("  + import torch", [str(python), "-c", "import errorkb.verify.inside.child, torch"], True),
              ("  + the bundled package", [str(python), "-c", f"import errorkb.verify.inside.child, torch, {bundled}"],
               True))
    rows = []
    for label, argv, jailed in stages:
        def one(argv=argv, jailed=jailed) -> None:  # type: ignore[no-untyped-def]
            with tempfile.TemporaryDirectory(prefix="errorkb-phase-") as scratch:
                command = jail.command(str(Path(scratch) / "output.txt"), 120, (), True, argv, scratch) if jailed else argv
                subprocess.run(box.wrap(command, device="cpu", writable=[Path(scratch)], jails=True, python=python),
                               env=box.env("cpu"), check=True, capture_output=True, stdin=subprocess.DEVNULL)
        rows.append((label, median_cpu(meter, args.n, one)))
    return rows


if __name__ == "__main__":
    sys.exit(main())
