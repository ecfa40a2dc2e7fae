"""Run one check in a fresh process, bounded in time and output, and collect what it saw.

Two isolation modes share everything but the start of the process: `subprocess` (here: a new
interpreter per check) and `fork` (`pool.py`: forked from a warm zygote). Either way a check
gets its own process group (so a snippet's children die with it), a wall-clock timeout, a cap
on what it may print, no core dumps, and on CPU a memory limit. The child writes an
observation file; if it dies before that, the process status (exit code, signal, timeout) is
the observation. An observation that is not a valid `Observation` is rejected, never trusted.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from errorkb.core.project import LibraryProfile
from errorkb.plugs import runtime_for
from errorkb.verify.plan import Check
from errorkb.verify.records import Observation
from errorkb.verify.sandbox import Sandbox, exit_status, jailed_command

OUTPUT_CAP = 1 << 20  # bytes a snippet may print
MEMORY_LIMIT = 8 << 30  # address space of a CPU check


class Isolation(StrEnum):
    FORK = "fork"  # forked from a warm interpreter (the default; milliseconds per check)
    SUBPROCESS = "subprocess"  # a new interpreter per check


@dataclass
class Run:
    """The raw facts of one check's process; `judge` turns them into a verdict."""

    observation: Observation | None  # what the child wrote; None if it wrote nothing usable
    returncode: int | None
    timed_out: bool
    output: str
    output_size: int
    duration_s: float
    timeout_s: float
    output_cap: int = OUTPUT_CAP
    malformed: str | None = None  # why the child's observation was rejected

    @property
    def signal(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


def check_spec(check: Check, library: LibraryProfile, preload: list[str] | None = None) -> dict[str, Any]:
    """What the child needs to observe one check; the same in both isolation modes."""
    return {
        "snippet": str(check.snippet.path.resolve()),
        "source_b64": base64.b64encode(check.snippet.data).decode("ascii"),
        "target": check.target,
        "device": check.device,
        "module": check.module,
        "function": check.entry.source.function,
        "role": str(check.role),
        "kind": check.entry.kind,
        "api": check.entry.api.model_dump(mode="json") if check.entry.api else None,
        "library": library.model_dump(mode="json"),
        "output_cap": OUTPUT_CAP,
        "memory_limit": MEMORY_LIMIT,
        "preload": list(preload or []),
    }


def child_env(library: LibraryProfile, device: str, python: Path | None = None) -> dict[str, str]:
    """The environment the runtime is imported under (the plug decides what a device sees). An
    interpreter other than this one (a release's matrix environment) finds errorkb on PYTHONPATH."""
    env = dict(runtime_for(library.runtime).child_env(device), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    if python is not None and Path(python) != Path(sys.executable):
        source_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [source_root, env.get("PYTHONPATH")]))
    return env


def run_check(check: Check, library: LibraryProfile, timeout: float, python: Path | None = None,
              sandbox: Sandbox | None = None) -> Run:
    """The plain way: a fresh interpreter per check (loads the runtime every time), in its own
    sandbox when one is given."""
    spec = check_spec(check, library)
    with tempfile.TemporaryDirectory(prefix="errorkb-") as scratch:
        result = Path(scratch) / "observation.json"
        output = Path(scratch) / "output.txt"
        argv = [str(python or sys.executable), "-m", "errorkb.verify.child", json.dumps(spec), str(result)]
        started = time.perf_counter()
        with output.open("wb") as sink:
            process = subprocess.Popen(
                sandbox.wrap(jailed_command(argv, result, timeout), device=check.device, writable=[Path(scratch)],
                             jails=True, python=python) if sandbox else argv,
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                cwd=scratch if sandbox else check.snippet.path.parent,
                env=sandbox.env(check.device) if sandbox else child_env(library, check.device, python),
                start_new_session=True,
            )
            timed_out = False
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                kill_group(process.pid)
                process.wait()
        duration = time.perf_counter() - started
        returncode = exit_status(process.returncode) if sandbox else process.returncode
        return collect(result, output, returncode, timed_out, duration, timeout)


def collect(result: Path, output: Path, returncode: int | None, timed_out: bool, duration: float,
            timeout: float) -> Run:
    """Read what a finished check left behind: its observation (validated) and capped output."""
    observation, malformed = read_observation(result)
    size = output.stat().st_size if output.exists() else 0
    text = ""
    if output.exists():
        with output.open("rb") as printed:
            text = printed.read(OUTPUT_CAP).decode("utf-8", errors="replace")
    return Run(observation, returncode, timed_out, text, size, round(duration, 4), timeout, malformed=malformed)


def read_observation(path: Path) -> tuple[Observation | None, str | None]:
    """(observation, None), (None, why it was rejected), or (None, None) when there is none."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as error:
        return None, f"unreadable observation ({error})"
    try:
        return Observation.model_validate_json(text), None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the document"
        return None, f"malformed observation ({error.error_count()} problems; {where}: {first['msg']})"


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
