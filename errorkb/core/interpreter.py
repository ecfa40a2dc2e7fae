"""How errorkb starts a Python of its own outside the sandbox: never with the folder it runs in on the import path.

`python -m MODULE` and `python -c CODE` put the current folder first on the child's import path, before the
standard library: run in a stranger's repository, the page rehearsal of `errorkb check` imported the repository's
`json.py`, and the version matrix's `python -m venv` its `venv.py`, with the user's rights. `-P` (Python 3.11)
leaves it out; what the child imports comes from its environment alone. Every such command is built here.
"""

from __future__ import annotations

import os

SAFE_PATH = "-P"  # no folder of the command's (the current one for -m and -c) on the import path


def python_command(interpreter: str | os.PathLike[str], *arguments: str) -> list[str]:
    """The command that runs `interpreter` on `arguments` (`-m MODULE ...`, `-c CODE ...`) with nothing of the
    current folder on its import path."""
    return [os.fspath(interpreter), SAFE_PATH, *arguments]


__all__ = ["SAFE_PATH", "python_command"]
