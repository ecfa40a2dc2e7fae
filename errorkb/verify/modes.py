"""How a check's process is made, and the error when its sandbox cannot be: named apart from the
code that makes them (`run.py`, `pool.py`, `sandbox.py`), so that reading the option or catching
the error (the CLI, a run answered from the cache) imports none of it."""

from __future__ import annotations

from enum import StrEnum


class Isolation(StrEnum):
    FORK = "fork"  # forked from a warm interpreter (the default; milliseconds per check)
    SUBPROCESS = "subprocess"  # a new interpreter per check


class SandboxUnavailable(RuntimeError):
    """`--sandbox require` on a machine where the sandbox cannot be created; the message says why."""
