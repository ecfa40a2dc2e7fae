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


# The CPython releases whose bytecode and tracing the observer's own tests pass on (CI's). On 3.12 (the
# first GPU run's) every attack still failed, but six observer tests did not hold and eight attacks
# failed for another reason: reports/gpu-runs/2026-12-04-h200/README.md.
PROVEN_PYTHONS = ((3, 11),)


def python_caveat(version: tuple[int, ...]) -> str | None:
    """What a run on another CPython than the observer was proven on must say, or None."""
    if tuple(version[:2]) in PROVEN_PYTHONS:
        return None
    proven = ", ".join(f"{major}.{minor}" for major, minor in PROVEN_PYTHONS)
    return (f"errorkb: WARNING: the verifier's observer is proven on CPython {proven} only (its own tests); this is "
            f"{version[0]}.{version[1]}, where some of them fail: a verdict may rest on an observation those tests "
            "do not cover")
