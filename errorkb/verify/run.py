"""Run one check in a fresh process, bounded in time and output, and collect what it saw.

Every check gets its own interpreter (`errorkb.verify.child`), its own process group (so a
snippet's children die with it), a wall-clock timeout, a cap on what it may print, and on
CPU a memory limit. The child writes an observation file; if it dies before that, the
process status (exit code, signal, timeout) is the observation.
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


def run_check(check: Check, module: str, timeout: float) -> Run:
    spec = {
        "snippet": str(check.snippet.resolve()),
        "target": check.target,
        "device": check.device,
        "module": module,
        "function": check.entry.source.function,
        "output_cap": OUTPUT_CAP,
        "memory_limit": MEMORY_LIMIT,
    }
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    if check.device == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""  # the snippet's own device choice comes out "cpu"
    with tempfile.TemporaryDirectory(prefix="errorkb-") as scratch:
        result = Path(scratch) / "observation.json"
        output = Path(scratch) / "output.txt"
        started = time.perf_counter()
        with output.open("wb") as sink:
            process = subprocess.Popen(
                [sys.executable, "-m", "errorkb.verify.child", json.dumps(spec), str(result)],
                stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                cwd=check.snippet.parent, env=env, start_new_session=True,
            )
            timed_out = False
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
            finally:
                _kill_group(process.pid)
                process.wait()
        duration = time.perf_counter() - started
        observation = _read_json(result)
        size = output.stat().st_size
        with output.open("rb") as printed:
            text = printed.read(OUTPUT_CAP).decode("utf-8", errors="replace")
    return Run(observation, process.returncode, timed_out, text, size, round(duration, 4), timeout)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
