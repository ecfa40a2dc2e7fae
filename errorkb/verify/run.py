"""Run one check in a fresh process, bounded in time and output, and collect what it saw.

Two isolation modes share everything but the start of the process: `subprocess` (here: a new
interpreter per check) and `fork` (`pool.py`: forked from a warm zygote). Either way a check
gets its own process group (so a snippet's children die with it), a wall-clock timeout, a cap
on what it may print, no core dumps, and on CPU a memory limit. The check's process streams
what it observes over a pipe whose read end only the harness holds (`stream.py` reads it); if
it ends without the observer's `end` line, the process status (exit code, signal, timeout) is
all there is. A stream the verifier did not write, or that does not validate, is rejected,
never trusted.
"""

from __future__ import annotations

import dataclasses
import os
import select
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from errorkb.core.interpreter import python_command
from errorkb.core.project import LibraryProfile
from errorkb.plugs import runtime_for
from errorkb.verify.inside import jail
from errorkb.verify.inside.seal import read_key
from errorkb.verify.inside.spec import ApiSpec, CheckSpec, LibrarySpec
from errorkb.verify.modes import Isolation as Isolation
from errorkb.verify.plan import Check
from errorkb.verify.records import Observation
from errorkb.verify.requirements import NOTHING_HIDDEN, Absence
from errorkb.verify.sandbox import Sandbox, exit_status, memory_kind
from errorkb.verify.stream import MAX_STREAM, read_stream

OUTPUT_CAP = 1 << 20  # bytes a snippet may print
MEMORY_LIMIT = 8 << 30  # address space of a CPU check


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
    malformed: str | None = None  # why the child's stream was rejected
    ended: bool = False  # the stream holds the observer's end line
    end_exit: int | str | None = None  # the exit status the end line announced (os._exit's)
    end_status: str | None = None
    sha256: str | None = None  # of the bytes the check's process ran, as its stream says
    cpu_s: float | None = None  # CPU time the check's process used (every thread, and what it waited for)
    wall_limit_s: float | None = None  # the wall-clock backstop it ran under (`timeout_s` is its CPU time)
    out_of_memory: str | None = None  # the jail's words: its memory cgroup's limit killed one of its processes
    memory_bound: str | None = None  # which memory bound applied to it (`sandbox.MEMORY_KINDS`), where the harness said

    @property
    def signal(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            try:
                return signal.Signals(-self.returncode).name
            except ValueError:
                return f"signal {-self.returncode}"
        return None


WALL_FACTOR, WALL_MARGIN_S = 5.0, 30.0  # the wall-clock backstop: generous, so a busy machine never trips it


@dataclass(frozen=True)
class Limits:
    """A check's time limits: `cpu_s` of CPU time (what `timeout` in the project means), and a wall-clock
    backstop for a check that waits instead of working (a sleep, a lock), far above what a busy
    machine adds to an honest check."""

    cpu_s: float
    wall_s: float

    def __post_init__(self) -> None:
        if not (self.cpu_s > 0 and self.wall_s > 0):
            raise ValueError(f"a check's time limits must be positive: {self.cpu_s:g} s of CPU time, "
                             f"a {self.wall_s:g} s wall-clock backstop")

    @classmethod
    def of(cls, timeout: float, wall_s: float | None = None) -> Limits:
        """`timeout` s of CPU time; the backstop `wall_s` where given (a test of the kill path need
        not wait 30 s for it), else the generous one."""
        return cls(float(timeout), max(WALL_FACTOR * timeout, timeout + WALL_MARGIN_S) if wall_s is None
                   else float(wall_s))


@dataclass(frozen=True)
class Ended:
    """How a check's process ended, as the process that waited for it saw it."""

    returncode: int | None
    timed_out: bool  # still running at the wall-clock backstop
    seconds: float
    stream: bytes
    key: bytes | None  # what came over the key's channel (None: nothing did)
    cpu_s: float | None = None
    out_of_memory: str | None = None  # the jail's words: the limit of its memory cgroup killed one of its processes


def library_spec(library: LibraryProfile) -> LibrarySpec:
    """What a check's process needs of the profile."""
    return LibrarySpec(name=library.name, dist=library.dist, bundled=library.bundled,
                       backends=tuple(library.backends), runtime=library.runtime)


def check_spec(check: Check, library: LibraryProfile, preload: list[str] | None = None,
               absent: Absence = NOTHING_HIDDEN) -> CheckSpec:
    """What the child needs to observe one check; the same in both isolation modes. `absent`: what the
    sandbox hides from it, which its process confirms gone before the snippet runs."""
    entry = check.entry
    functions = [entry.source.function] if entry.kind == "raise" else []
    functions += [w.function for w in entry.also_seen_as if w.function and w.function not in functions]
    return CheckSpec(
        snippet=str(check.snippet.path.resolve()), source=check.snippet.data, target=check.target,
        device=check.device, module=check.module, function=entry.source.function, functions=tuple(functions),
        role=str(check.role), kind=entry.kind, library=library_spec(library),
        api=ApiSpec(owner=entry.api.owner, name=entry.api.name) if entry.api else None,
        callbacks=entry.source.user_code or any(allowed.primitive == "callback"
                                                for allowed in entry.allowances(check.role)),
        runtime_site=entry.source.runtime,
        output_cap=OUTPUT_CAP, memory_limit=MEMORY_LIMIT, preload=tuple(preload or []),
        absent=absent.distributions, absent_modules=absent.modules,
    )


def working_copy(snippet: Path, scratch: Path) -> Path:
    """Without the sandbox, the check's working folder: `scratch`/work, holding a copy of its snippet folder (files
    read-only, links as links), so that a relative path reads the snippet's own files (what the verdict's key
    holds) as in the sandbox's `jail.working_folder`, and what the check writes there (a Trainer's `output_dir`)
    never lands in the checkout, where it would change the entry's folder and its key."""
    work = scratch / "work"
    shutil.copytree(snippet, work, symlinks=True)
    for top, _, files in os.walk(work):
        for name in files:
            path = os.path.join(top, name)
            if not os.path.islink(path):
                os.chmod(path, 0o444)
    return work


def with_limits(spec: CheckSpec, limits: Limits) -> CheckSpec:
    return dataclasses.replace(spec, cpu_seconds=limits.cpu_s)


def child_env(library: LibraryProfile, device: str, python: Path | None = None) -> dict[str, str]:
    """The environment the runtime is imported under (the plug decides what a device sees). An
    interpreter other than this one (a release's matrix environment) finds errorkb on PYTHONPATH."""
    env = dict(runtime_for(library.runtime).child_env(device), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    if python is not None and Path(python) != Path(sys.executable):
        source_root = str(Path(__file__).resolve().parents[2])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [source_root, env.get("PYTHONPATH")]))
    return env


def run_check(check: Check, library: LibraryProfile, timeout: float, python: Path | None = None,
              sandbox: Sandbox | None = None, *, wall_s: float | None = None, absent: Absence = NOTHING_HIDDEN) -> Run:
    """The plain way: a fresh interpreter per check (loads the runtime every time), in its own
    sandbox when one is given. The stream's and the key channel's read ends stay here; their write
    ends are the child's, which its jail's launcher moves to where a check's process finds them.
    `absent`: what the sandbox hides from the check (`requirements.absence`); only it can."""
    if absent.paths and sandbox is None:
        raise ValueError("only the sandbox hides a `without:` need's distribution")
    limits = Limits.of(timeout, wall_s)
    spec = with_limits(check_spec(check, library, absent=absent), limits)
    with tempfile.TemporaryDirectory(prefix="errorkb-") as scratch:
        output = Path(scratch) / "output.txt"
        read_end, write_end = os.pipe()
        key_read, key_write = os.pipe()
        os.set_blocking(key_read, False)
        if not sandbox:
            spec = dataclasses.replace(spec, stream_fd=write_end, key_fd=key_write)
        argv = python_command(python or sys.executable, "-m", "errorkb.verify.inside.child", spec.to_json())
        started = time.perf_counter()
        reader = StreamReader(read_end)
        hide_proc = not runtime_for(library.runtime).needs_proc(check.device)
        try:
            with output.open("wb") as sink:
                process = subprocess.Popen(
                    sandbox.wrap(jail.command(str(output), limits.wall_s, (write_end, key_write), hide_proc, argv,
                                              str(check.snippet.path.parent)),
                                 device=check.device, writable=[Path(scratch)], jails=True, python=python,
                                 absent=absent.paths)
                    if sandbox else argv,
                    stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT, pass_fds=(write_end, key_write),
                    cwd=scratch if sandbox else working_copy(check.snippet.path.parent, Path(scratch)),
                    env=sandbox.env(check.device) if sandbox else child_env(library, check.device, python),
                    start_new_session=True,
                )
            for fd in (write_end, key_write):
                os.close(fd)
            write_end = key_write = -1
            status, cpu, timed_out = _wait(process.pid, limits.wall_s)
        finally:
            for fd in (write_end, key_write):
                if fd >= 0:
                    os.close(fd)
            data = reader.finish()
            try:
                key = os.read(key_read, 256)
            except OSError:
                key = b""
            os.close(key_read)
        duration = time.perf_counter() - started
        code = os.waitstatus_to_exitcode(status)
        returncode = exit_status(code) if sandbox else code
        # the launcher's words where the check's memory cgroup killed one of its processes: in the sandbox only, where
        # the check never saw this folder (without it, the snippet could write any file here)
        note = jail.read_plain(str(Path(scratch) / jail.MEMORY_NOTE), 4096) if sandbox else None
        return collect(Ended(returncode, timed_out, duration, data, key, cpu,
                             note.decode("utf-8", errors="replace") if note else None), output, limits,
                       memory_kind(sandbox, check.device))


def _wait(pid: int, wall: float) -> tuple[int, float, bool]:
    """(wait status, CPU seconds, whether the wall-clock backstop was hit) of the process `pid`, which
    is killed with its group at the backstop, and in any case once it ends (what it left running)."""
    pidfd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([pidfd], [], [], wall)
    finally:
        os.close(pidfd)
    kill_group(pid)
    _, status, usage = os.wait4(pid, 0)
    return status, usage.ru_utime + usage.ru_stime, not ready


class StreamReader:
    """Reads a check's stream as it comes (so the check never blocks on a full pipe), up to
    `MAX_STREAM` bytes; `finish` takes what is left once the check is over."""

    def __init__(self, fd: int):
        self.fd = fd
        self.data = bytearray()
        self.stop = threading.Event()
        os.set_blocking(fd, False)
        self.thread = threading.Thread(target=self._read, name="errorkb-stream", daemon=True)
        self.thread.start()

    def _read(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self.fd, selectors.EVENT_READ)
            while not self.stop.is_set():
                if selector.select(timeout=0.1) and not self._drain():
                    return

    def _drain(self) -> bool:
        """Read what is there; False at the end of the stream."""
        while True:
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            if len(self.data) < MAX_STREAM:
                self.data += chunk[:MAX_STREAM - len(self.data)]

    def finish(self) -> bytes:
        self.stop.set()
        self.thread.join(5)
        self._drain()
        os.close(self.fd)
        return bytes(self.data)


def collect(ended: Ended, output: Path, limits: Limits, memory_bound: str | None = None) -> Run:
    """Read what a finished check left behind: its stream (each line's seal checked under the key it
    handed over) and its capped output. `memory_bound` (`sandbox.memory_kind`: the harness's knowledge,
    never the check's word) joins the observation's `environment`, which the record keeps."""
    reading = read_stream(ended.stream, read_key(ended.key or b""))
    seen = reading.observation
    if memory_bound is not None and seen is not None and seen.environment is not None:
        seen = seen.model_copy(update={"environment": {**seen.environment, "memory_bound": memory_bound}})
    # A plain file only, never through a link, never blocking, one byte past the cap at most: without the sandbox
    # the check can name this file (/proc/self/fd/1) and put a FIFO there (the harness's read would block the run
    # for ever) or a link to a file of the host (copied into the report); in the sandbox the jail copied it back so.
    printed = jail.read_plain(str(output), OUTPUT_CAP + 1) or b""  # the jail's reader: one owner
    size, text = len(printed), printed[:OUTPUT_CAP].decode("utf-8", errors="replace")
    return Run(seen, ended.returncode, ended.timed_out, text, size, round(ended.seconds, 4),
               limits.cpu_s, malformed=reading.rejected, ended=reading.ended, end_exit=reading.exit,
               end_status=reading.status, sha256=reading.sha256,
               cpu_s=round(ended.cpu_s, 3) if ended.cpu_s is not None else None, wall_limit_s=limits.wall_s,
               out_of_memory=ended.out_of_memory, memory_bound=memory_bound)


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
