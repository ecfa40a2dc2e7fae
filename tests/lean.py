"""A lean interpreter for the tests whose snippets use no optional backend.

The bundled cache, like upstream's, imports hqq's quantizer when hqq is installed, and hqq imports
torch._dynamo and torch._inductor. Measured here (CPU, user + sys): `import torch,
transformers_errorkb.kvcache` 5.0 s with hqq, 2.1 s without; a sandboxed zygote (which also preloads
torch._dynamo, which the bundled source names) and its one check 4.1 s against 2.75 s; a fresh
sandboxed interpreter per check 3.7 s against 1.7 s. This environment has hqq installed for the
knowledge base's quantized-cache entries; a small fixture knowledge base, or a probe snippet, never
needs it.

- `lean_environment(folder)`: a virtual environment with this one's packages, hard-linked (seconds,
  nothing copied, nothing downloaded), less `UNUSED_BACKENDS` and this project's own tools (`TOOLS`, which no
  check imports and every interpreter importing the bundled cache paid for); its python.
- the session fixture `lean_python`: one such environment per test process, made on first use.
- the fixture `lean_checks` (`checks_in(python)` in a module-scoped fixture): in the test that uses
  it, every check the verifier would run in this interpreter (`Verifier.interpreter`) runs in
  `lean_python` instead: through the very path a release's matrix environment takes (another
  interpreter, its environment shown read-only in the sandbox).
  Tests that call `WorkerPool.run` or `run_check` themselves pass `python=lean_python`.

What still runs with hqq: the repository's knowledge base (`kb_report`: tests/test_knowledge_base.py
checks that its hqq entries ran; tests/test_lean.py that the lean interpreter lacks hqq and that
`lean_checks` runs checks in it), the kvcache tests and every test that does not ask for these.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import sys
import venv
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from errorkb.verify.plan import Check

# Installed here for the knowledge base's quantized-cache entries; no fixture's snippet uses them.
UNUSED_BACKENDS = ("hqq",)

# This project's own tools (the site's theme, the browser, the test runner's plugins, the linters), installed beside
# the library: the CLI's `verify` and the fixtures' checks import none of them (the adversarial run proves it), yet
# every interpreter that imports the bundled cache paid for their file lists, since its `_compat` reads
# `packages_distributions()` when it is imported, as upstream does: a walk over every installed distribution's
# RECORD, 0.22 s of CPU a check with them and 0.10 s without (mkdocs-material's 10,000 icons alone about 0.09 s;
# benchmarks/check_start.py, line 4, with `--python` the run's). Every fresh check and zygote the tests start in a
# lean interpreter paid it: `import torch, transformers_errorkb.kvcache` 1.96 s with them, 1.79 s without
# (benchmarks/lean_interpreter.py).
TOOLS = ("mkdocs-material", "mkdocs-material-extensions", "playwright", "pytest-playwright", "pytest-timeout",
         "pytest-xdist", "hypothesis", "mypy", "ruff", "import-linter", "grimp", "babel", "onnx")


def without_tools(site_packages: Path, names: tuple[str, ...] = TOOLS, installed: Path | None = None) -> list[str]:
    """Remove `names` (`TOOLS`) from a hard-linked copy's `site_packages` (the links only: the files stay where
    they are linked from), each as the sandbox would hide it (`requirements.installed_files`) in the environment as
    installed; the names removed. `installed`: the site-packages the copy was linked from, where the files are found
    (then removed from the copy at the same places): its file lists are read once per process (`requirements`
    caches them under the folder and its time of change), where the copy's were read anew for each copy (3.4 s of
    CPU, the most of making one: benchmarks/without_tools.py).

    Every name's files are found before the first is removed: a removal changes the folder, the key its file lists
    are cached under, and found one by one each name read every installed distribution's RECORD again (6 s of CPU for
    `TOOLS`, 3.4 s found first: benchmarks/without_tools.py). A folder the removals leave empty goes too (two tools
    beside each other in one namespace folder: no empty package left behind to import).

    Checks itself, as test_adversarial checks `UNUSED_BACKENDS`: a name it cannot remove (renamed, no longer
    installed, sharing a file with another distribution) raises ValueError naming each, after the others are
    removed, so that no tool stays in the run's environment without a word."""
    from errorkb.verify.requirements import installed_files

    source = installed if installed is not None else site_packages
    found = {name: installed_files(name, source) for name in names}
    base, source_base = site_packages.resolve(), source.resolve()  # (the paths found are real ones)
    removed, kept, emptied = [], [], set()
    for name, paths in found.items():
        if isinstance(paths, str) or not paths:
            kept.append(f"{name} ({paths or 'not installed'})")
            continue
        outside = [path for path in paths if not Path(path).is_relative_to(source_base)]
        if outside:
            kept.append(f"{name} (installed outside {source}: {', '.join(outside)})")
            continue
        for path in (base / Path(one).relative_to(source_base) for one in paths):
            if path.is_symlink() or path.exists():  # (a folder of an earlier name's may have held it)
                shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
            emptied.add(path.parent)
        removed.append(name)
    for folder in sorted(emptied, key=lambda one: len(one.parts), reverse=True):  # innermost first
        while folder != base and folder.is_relative_to(base) and folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
    if kept:
        raise ValueError(f"tests/lean.py's TOOLS cannot leave out of {site_packages}: {'; '.join(kept)}; "
                         "correct or drop the name (a distribution's name, as `pip show` gives it)")
    return removed


def site_packages(prefix: Path) -> Path:
    return prefix / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def lean_environment(folder: Path, tools: bool = False) -> Path:
    """A virtual environment with this one's packages less `UNUSED_BACKENDS` and (unless `tools`) `TOOLS`,
    hard-linked (seconds, no copy, nothing downloaded); its python. What is left out is never linked where it is a
    whole entry of site-packages (a tool's package or metadata folder: linked, then removed, mkdocs-material's icons
    and the others cost more than the rest of the copy); `without_tools` then removes what lies deeper and checks
    that every tool is gone. Where hard links cannot be made (another file system), this environment's own python:
    the run is the same, only slower (tests/test_lean.py then fails, saying so)."""
    here = site_packages(Path(sys.prefix))
    venv.EnvBuilder(symlinks=True, with_pip=False).create(folder)
    there = site_packages(folder)
    left_out = set() if tools else _whole_entries(here, TOOLS)
    linked = [str(path) for path in sorted(here.iterdir())
              if path.name.split("-")[0] not in UNUSED_BACKENDS and path.name not in left_out]  # a package, its dist-info
    try:
        subprocess.run(["cp", "-al", *linked, str(there)], check=True, capture_output=True)
    except subprocess.CalledProcessError:
        shutil.rmtree(folder, ignore_errors=True)
        return Path(sys.executable)
    if not tools:
        without_tools(there, installed=here)
    return folder / "bin" / "python"


def _whole_entries(site: Path, names: tuple[str, ...]) -> set[str]:
    """The names of `site`'s own entries (folders and files right inside it) that hiding `names` hides whole."""
    from errorkb.verify.requirements import installed_files

    real = site.resolve()
    return {Path(path).name for name in names if isinstance(paths := installed_files(name, site), list)
            for path in paths if Path(path).parent == real}


@pytest.fixture(scope="session")
def lean_python(tmp_path_factory) -> Path:
    """This environment less `UNUSED_BACKENDS`, made once per test process."""
    return lean_environment(tmp_path_factory.mktemp("lean") / "env")


@contextlib.contextmanager
def checks_in(python: Path) -> Iterator[Path]:
    """While open, the checks the verifier would run in this interpreter run in `python` instead (other
    releases' environments are left as they are): for a module-scoped fixture; tests use `lean_checks`."""
    from errorkb.verify.engine import Verifier

    chosen = Verifier.interpreter
    interpreter = _INTERPRETERS.get((python, chosen))
    if interpreter is None:  # one function per interpreter: a pool kept for the next test (`engine.Shelf`) knows it

        def interpreter(self: Verifier, check: Check) -> Path | None:
            found = chosen(self, check)
            return python if found == Path(sys.executable) else found

        _INTERPRETERS[(python, chosen)] = interpreter

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Verifier, "interpreter", interpreter)
        yield python


# (the lean interpreter, the method it replaces) → the replacement: the same object in every test, since the harness's
# functions are part of what decides whether a shelved pool may serve a run (`engine._harness`)
_INTERPRETERS: dict[tuple[Path, object], Callable[..., Path | None]] = {}


@pytest.fixture
def lean_checks(lean_python) -> Iterator[Path]:
    """The checks of the test run in `lean_python` (see the module's docstring); gives `lean_python`."""
    with checks_in(lean_python):
        yield lean_python
