"""Run one check in a fresh process, bounded in time and output, and collect what it saw.

Two isolation modes share everything but the start of the process: `subprocess` (here: a new
interpreter per check) and `fork` (`pool.py`: forked from a warm zygote). Either way a check
gets its own process group (so a snippet's children die with it), a wall-clock timeout, a cap
on what it may print, no core dumps, and on CPU a memory limit. The child writes an
observation file; if it dies before that, the process status (exit code, signal, timeout) is
the observation.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from errorkb.verify.plan import Check
from errorkb.verify.sandbox import Sandbox, exit_status, jailed_command, sandbox_env

OUTPUT_CAP = 1 << 20  # bytes a snippet may print
MEMORY_LIMIT = 8 << 30  # address space of a CPU check


@dataclass
class Run:
    """The raw facts of one check's process; `judge` turns them into a verdict."""

    observation: dict  # what the child wrote; {} if it wrote nothing
    returncode: int | None
    timed_out: bool
    output: str
    output_size: int
    duration_s: float
    timeout_s: float
    output_cap: int = OUTPUT_CAP
    extra: dict = field(default_factory=dict)

    @property
    def signal(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


def check_spec(check: Check, preload: list[str] = ()) -> dict:
    """What the child needs to observe one check; the same in both isolation modes."""
    return {
        "snippet": str(check.snippet.resolve()),
        "target": check.target,
        "device": check.device,
        "module": check.entry.source.module,
        "function": check.entry.source.function,
        "output_cap": OUTPUT_CAP,
        "memory_limit": MEMORY_LIMIT,
        "preload": list(preload),
    }


def child_env(device: str) -> dict[str, str]:
    """The environment torch is imported under: a CPU check sees no CUDA device at all."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    if device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""  # the snippet's own device choice comes out "cpu"
    return env


def run_check(check: Check, timeout: float, sandbox: Sandbox | None = None) -> Run:
    """The plain way: a fresh interpreter per check (imports torch every time), in its own sandbox if given."""
    spec = check_spec(check)
    with tempfile.TemporaryDirectory(prefix="errorkb-") as scratch:
        result = Path(scratch) / "observation.json"
        output = Path(scratch) / "output.txt"
        argv = [sys.executable, "-m", "errorkb.verify.child", json.dumps(spec), str(result)]
        started = time.perf_counter()
        with output.open("wb") as sink:
            process = subprocess.Popen(
                sandbox.wrap(jailed_command(argv, result, timeout), device=check.device, writable=[Path(scratch)],
                             jails=True) if sandbox else argv,
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                cwd=scratch if sandbox else check.snippet.parent,
                env=sandbox_env(check.device) if sandbox else child_env(check.device), start_new_session=True,
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
    """Read what a finished check left behind: its observation and (capped) output."""
    observation = _read_json(result)
    size = output.stat().st_size if output.exists() else 0
    text = ""
    if output.exists():
        with output.open("rb") as printed:
            text = printed.read(OUTPUT_CAP).decode("utf-8", errors="replace")
    return Run(observation, returncode, timed_out, text, size, round(duration, 4), timeout)


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
