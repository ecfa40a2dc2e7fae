"""The hook rounds' one program runner (tests/test_hook_round_*.py, tests/test_hook_hostile.py): a program run by the
interpreter with the hook's `.pth` and by the one without it, alike otherwise, and what the hook added.

Each round once carried its own copy of the same shape (`subprocess.run` of `script.py` for `python in (hooked,
plain)`, `_compare`, `_unaddressed`, the block's pattern): one owner here, as tests/site/lookupkb.py is the lookup
tests'. `envs` (the module-scoped pair of interpreters) and `stub_library` stay tests/test_hook.py's.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from tests.processes import sigint_parent
from tests.test_hook import run, stub_library

LIBRARY = "from transformers.cache_utils import early_initialization\n"  # after `stub_library`: the entry's error
RAISE = "early_initialization()\n"
BLOCK = "\nerrorkb: a documented error — "  # how the block starts, after Python's own output
BLOCK_RE = re.compile(r"\nerrorkb: [^\n]*\n(?:  [^\n]*\n)*")  # one whole block

# Programs start with SIGINT as at a terminal (`tests.processes.sigint_parent`, which says why); `sigint_ignored=True`
# runs one that inherits it ignored, where `AT_A_TERMINAL` (in the program) takes it back.
AT_A_TERMINAL = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"


def unaddressed(text: str) -> str:
    """`text` with objects' addresses (`at 0x7f...`) made alike: two processes print different ones; and, in Python's
    dump of an object it could not print ("lost sys.stderr"), its address and its references, which the hook's frames
    hold too."""
    return re.sub(r"0x[0-9a-f]+|refcount : \d+", "0x?", text)


def compare(with_hook: subprocess.CompletedProcess, without: subprocess.CompletedProcess) -> str:
    """What the hook added after Python's own output, which must be unchanged (objects' addresses aside), as must the
    exit status and stdout."""
    assert (with_hook.returncode, with_hook.stdout) == (without.returncode, without.stdout), with_hook.stderr
    assert "errorkb:" not in without.stderr, without.stderr
    assert unaddressed(with_hook.stderr).startswith(unaddressed(without.stderr)), with_hook.stderr
    return with_hook.stderr[len(without.stderr):]


def both(envs: tuple[Path, Path], folder: Path | str, code: str | None = None, argv: Sequence[str] = ("script.py",),
         env: Mapping[str, str] | None = None, timeout: float = 300, sigint_ignored: bool = False,
         **options: object) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess]:
    """(with the hook, without it): `argv` run by each interpreter of `envs` in `folder`; `code`, when given, is
    written to `folder/script.py` after `stub_library`'s prelude and `LIBRARY` first. `env`: variables added to this
    process's. SIGINT is the program's as at a terminal, whatever this process inherited; `sigint_ignored`: inherited
    ignored (`sigint_parent`). `options`: more of `subprocess.run`'s (`input`, `stdin`, `errors`)."""
    plain, hooked = envs
    if code is not None:
        (Path(folder) / "script.py").write_text(stub_library(Path(folder)) + LIBRARY + code, encoding="utf-8")
    environment = None if env is None else {**os.environ, **env}
    options.setdefault("text", True)
    parent = sigint_parent(sigint_ignored)
    return tuple(subprocess.run([*parent, str(python), *argv], capture_output=True, cwd=folder,  # type: ignore[return-value]
                                timeout=timeout, env=environment, **options)  # type: ignore[call-overload]
                 for python in (hooked, plain))


def pair(envs: tuple[Path, Path], code: str, folder: Path) -> tuple[subprocess.CompletedProcess,
                                                                   subprocess.CompletedProcess]:
    """(with the hook, without it): `code` as it is (`tests.test_hook.run`: `folder/script.py`), by each interpreter."""
    plain, hooked = envs
    return run(hooked, code, folder), run(plain, code, folder)


def added(envs: tuple[Path, Path], folder: Path, code: str | None = None, argv: Sequence[str] = ("script.py",),
          env: Mapping[str, str] | None = None, timeout: float = 300, **options: object) -> str:
    """`compare` of `both`: what the hook printed after Python's unchanged output."""
    return compare(*both(envs, folder, code, argv, env, timeout, **options))


def blocks(with_hook: subprocess.CompletedProcess, without: subprocess.CompletedProcess) -> list[str]:
    """The blocks the hook added anywhere in Python's output (two processes' each after its own report: a fork), which
    without them must be Python's unchanged, as must the exit status and stdout."""
    assert (with_hook.returncode, with_hook.stdout) == (without.returncode, without.stdout), with_hook.stderr
    assert "errorkb:" not in without.stderr, without.stderr
    assert unaddressed(BLOCK_RE.sub("", with_hook.stderr)) == unaddressed(without.stderr), with_hook.stderr
    return BLOCK_RE.findall(with_hook.stderr)


def one_block(text: str) -> bool:
    """Whether `text` (what the hook added) is one block, and nothing more."""
    return text.startswith(BLOCK) and text.count("errorkb:") == 1 and BLOCK_RE.sub("", text) == ""
