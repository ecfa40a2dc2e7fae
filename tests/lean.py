"""A lean interpreter for the tests whose snippets use no optional backend.

The bundled cache, like upstream's, imports hqq's quantizer when hqq is installed, and hqq imports
torch._dynamo and torch._inductor. Measured here (CPU, user + sys): `import torch,
transformers_errorkb.kvcache` 5.0 s with hqq, 2.1 s without; a sandboxed zygote (which also preloads
torch._dynamo, which the bundled source names) and its one check 4.1 s against 2.75 s; a fresh
sandboxed interpreter per check 3.7 s against 1.7 s. This environment has hqq installed for the
knowledge base's quantized-cache entries; a small fixture knowledge base, or a probe snippet, never
needs it.

- `lean_environment(folder)`: a virtual environment with this one's packages, hard-linked (seconds,
  nothing copied, nothing downloaded), less `UNUSED_BACKENDS`; its python.
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


def site_packages(prefix: Path) -> Path:
    return prefix / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"


def lean_environment(folder: Path) -> Path:
    """A virtual environment with this one's packages less `UNUSED_BACKENDS`, hard-linked (seconds, no
    copy, nothing downloaded); its python. Where hard links cannot be made (another file system), this
    environment's own python: the run is the same, only slower (tests/test_lean.py then fails, saying so)."""
    here = site_packages(Path(sys.prefix))
    venv.EnvBuilder(symlinks=True, with_pip=False).create(folder)
    there = site_packages(folder)
    shutil.rmtree(there)
    try:
        subprocess.run(["cp", "-al", str(here), str(there)], check=True, capture_output=True)
    except subprocess.CalledProcessError:
        shutil.rmtree(folder, ignore_errors=True)
        return Path(sys.executable)
    for path in there.iterdir():
        if path.name.split("-")[0] in UNUSED_BACKENDS:  # the package and its dist-info
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
    return folder / "bin" / "python"


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
