"""The warm worker pool: one zygote per (target, device), a fresh forked process per check.

`WorkerPool.run(check)` gives the same `Run` as `run.run_check` (a new interpreter per check)
and the child runs the same observe code, so verdicts do not depend on the isolation mode;
only the cost does (milliseconds instead of importing the runtime). The parent keeps the duties that
must not depend on the child's cooperation: the wall-clock timeout, the kill of the child's
whole process group, and reading back the capped output.

A zygote that cannot prepare its target answers every check with the same "setup-failed"
observation a fresh interpreter would have produced. One that dies mid-run fails the checks
it held ("worker died", never cached) and is started again for the next check.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errorkb.core.project import LibraryProfile
from errorkb.verify.plan import Check
from errorkb.verify.records import Observation, Status
from errorkb.verify.run import Run, check_spec, child_env, collect, kill_group, run_check
from errorkb.verify.sandbox import TIMER_MARGIN_S, Sandbox

_KILL_GRACE_S = 10.0  # after SIGKILL, how long to wait for the zygote to reap the child
_START_S = 600.0  # how long a zygote may take to load the runtime and its target
_FORK_S = 60.0  # how long a warm zygote may take to fork a check


@dataclass
class _Pending:
    started: threading.Event = field(default_factory=threading.Event)
    exited: threading.Event = field(default_factory=threading.Event)
    pid: int | None = None
    returncode: int | None = None
    stream: bytes = b""


class WorkerDied(RuntimeError):
    pass


class Zygote:
    """Client side of one `errorkb.verify.zygote` process."""

    def __init__(self, target: str, device: str, module: str, preload: list[str], scratch: Path,
                 library: LibraryProfile, python: Path, sandbox: Sandbox | None = None):
        self.key = (target, device, module, str(python))
        self.log = scratch / f"zygote-{target}-{device}-{os.getpid()}-{id(self)}.log"
        self.sandboxed = sandbox is not None  # its pids are the sandbox's: never kill them from here
        config = {"target": target, "device": device, "module": module, "preload": preload,
                  "library": library.model_dump(mode="json"), "jail": self.sandboxed}
        argv = [str(python), "-m", "errorkb.verify.zygote", json.dumps(config)]
        with self.log.open("wb") as log:
            self.process = subprocess.Popen(
                sandbox.wrap(argv, device=device, writable=[scratch], jails=True, python=python) if sandbox else argv,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                env=sandbox.env(device) if sandbox else child_env(library, device, python), start_new_session=True,
            )
        self.lock = threading.Lock()  # guards `pending` and `next_id`
        self.write_lock = threading.Lock()  # one request line at a time; never held while reading
        self.pending: dict[int, _Pending] = {}
        self.next_id = 0
        self.hello = threading.Event()
        self.ready = False
        self.fallback = False  # the zygote cannot fork safely: run checks in fresh interpreters
        self.error: str | None = None
        self.dead: str | None = None
        self.reader = threading.Thread(target=self._read, name=f"zygote-{target}-{device}", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:  # type: ignore[union-attr]
            try:
                message = json.loads(line)
                if not isinstance(message, dict):
                    raise ValueError("not an object")
            except ValueError:  # not the zygote's protocol: this worker cannot be trusted any more
                self._condemn(f"the worker for {self.key[0]}/{self.key[1]} wrote a line outside its protocol: "
                              f"{line[:80]!r}")
                return
            if "hello" in message:
                self.ready, self.error = message["ready"], message["error"]
                self.fallback = bool(message.get("fallback"))
                self.hello.set()
                continue
            with self.lock:
                pending = self.pending.get(message.get("id"))  # type: ignore[arg-type]
            if pending is None:
                continue
            if "pid" in message:
                pending.pid = message["pid"]
                pending.started.set()
            if "exit" in message:
                try:
                    pending.stream = base64.b64decode(message.get("stream") or "", validate=True)
                except (binascii.Error, ValueError, TypeError):
                    pending.stream = b""
                pending.returncode = message["exit"]
                pending.exited.set()
        self._condemn(None)

    def _condemn(self, why: str | None) -> None:
        """The worker is gone, or no longer speaks its protocol: end it, fail the checks it held."""
        if why is not None:
            with self.lock:
                self.dead = self.dead or why
            kill_group(self.process.pid)
        try:
            self.process.wait(_KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            kill_group(self.process.pid)
            self.process.wait()
        log = self.log.read_text(errors="replace")[-2000:] if self.log.exists() else ""
        ending = f": {log}" if log else ""
        with self.lock:
            self.dead = self.dead or f"the worker for {self.key[0]}/{self.key[1]} exited ({self.process.returncode})" \
                f"{ending}"
        self.hello.set()
        with self.lock:
            for pending in self.pending.values():
                pending.started.set()
                pending.exited.set()

    def wait_ready(self) -> None:
        if not self.hello.wait(_START_S):
            kill_group(self.process.pid)
            raise WorkerDied(f"the worker for {self.key[0]}/{self.key[1]} did not start within {_START_S:g} s")
        if not self.ready and self.error is None:
            raise WorkerDied(self.dead or "the worker never said hello")

    def run(self, spec: dict[str, Any], cwd: Path, scratch: Path,
            timeout: float) -> tuple[int | None, bool, float, bytes]:
        """Fork one child for `spec`; (returncode, timed out, seconds, its stream)."""
        with self.lock:
            request_id, self.next_id = self.next_id, self.next_id + 1
            pending = self.pending[request_id] = _Pending()
        request = {"id": request_id, "spec": spec, "cwd": str(cwd), "timeout": timeout,
                   "result": str(scratch / "output.txt"), "output": str(scratch / "output.txt")}
        started = time.perf_counter()  # from the request: a busy harness may hear "pid" and "exit" at once
        try:
            with self.write_lock:
                self.process.stdin.write((json.dumps(request) + "\n").encode())  # type: ignore[union-attr]
                self.process.stdin.flush()  # type: ignore[union-attr]
        except (BrokenPipeError, OSError) as error:
            raise WorkerDied(self.dead or f"the worker is gone ({error})") from None
        try:
            if not pending.started.wait(_FORK_S):
                self._condemn(f"the worker for {self.key[0]}/{self.key[1]} did not start a check within {_FORK_S:g} s")
                raise WorkerDied(self.dead or "the worker did not start the check")
            if pending.pid is None:
                raise WorkerDied(self.dead or "the worker did not start the check")
            timed_out = not pending.exited.wait(timeout)
            if timed_out:
                if not self.sandboxed:  # inside, the check's own init ends it (sandbox.TIMER_MARGIN_S later)
                    kill_group(pending.pid)
                if not pending.exited.wait(_KILL_GRACE_S + (TIMER_MARGIN_S if self.sandboxed else 0)):
                    self._condemn(f"the worker for {self.key[0]}/{self.key[1]} did not end a timed-out check")
            if pending.returncode is None and not timed_out:
                raise WorkerDied(self.dead or "the worker lost the check")
            return pending.returncode, timed_out, time.perf_counter() - started, pending.stream
        finally:
            if pending.pid is not None and not self.sandboxed:
                kill_group(pending.pid)  # whatever the snippet left running in its group, however it ended
            with self.lock:
                self.pending.pop(request_id, None)

    def close(self) -> None:
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            kill_group(self.process.pid)
            self.process.wait()


class WorkerPool:
    """Zygotes started on first use, shared by every thread of a run; close when done."""

    def __init__(self, library: LibraryProfile, preload: list[str] | None = None, sandbox: Sandbox | None = None):
        self.library = library
        self.preload = list(preload or [])
        self.sandbox = sandbox
        self.zygotes: dict[tuple[str, str, str, str], Zygote] = {}
        self.lock = threading.Lock()
        self._scratch = tempfile.TemporaryDirectory(prefix="errorkb-pool-")
        self.scratch = Path(self._scratch.name)

    def warm(self, keys: set[tuple[str, str, str, str]]) -> None:
        """Start the zygotes for these (target, device, module, python) now, side by side, without waiting."""
        for key in sorted(keys):
            self._start(*key)

    def _start(self, target: str, device: str, module: str, python: str) -> Zygote:
        # A CPU zygote loads the runtime and the library once and imports each target module when a
        # check first needs it (7 modules of one release: one import of the runtime, not seven). On a
        # device each module keeps its own: importing one there may initialise the device.
        if device == "cpu":
            module = self.library.name
        key = (target, device, module, python)
        with self.lock:
            zygote = self.zygotes.get(key)
            if zygote is None or (zygote.dead and zygote.ready):  # died mid-run: start again
                zygote = self.zygotes[key] = Zygote(target, device, module, self.preload, self.scratch, self.library,
                                                    Path(python), self.sandbox)
        return zygote

    def zygote(self, target: str, device: str, module: str, python: str) -> Zygote:
        zygote = self._start(target, device, module, python)
        zygote.wait_ready()
        return zygote

    def run(self, check: Check, timeout: float, python: Path | None = None) -> Run:
        spec = check_spec(check, self.library, self.preload)
        # A check left running by a dead worker may still write here: never let cleanup fail the run.
        with tempfile.TemporaryDirectory(prefix="check-", dir=self.scratch, ignore_cleanup_errors=True) as folder:
            scratch = Path(folder)
            try:
                interpreter = python or Path(sys.executable)
                zygote = self.zygote(check.target, check.device, check.module, str(interpreter))
                if zygote.fallback:
                    return run_check(check, self.library, timeout, interpreter, self.sandbox)
                if not zygote.ready:  # the same observation a fresh interpreter would have made
                    # The harness observed this itself (no snippet ran): complete, as an end line would be.
                    failed = Observation(status=Status.SETUP_FAILED, error=zygote.error)
                    return Run(failed, 0, False, "", 0, 0.0, timeout, ended=True, end_exit=0)
                returncode, timed_out, duration, stream = zygote.run(spec, check.snippet.path.parent, scratch,
                                                                     timeout)
            except WorkerDied as died:
                return Run(Observation(status=Status.WORKER_DIED, error=str(died)), None, False, "", 0, 0.0, timeout)
            return collect(stream, scratch / "output.txt", returncode, timed_out, duration, timeout)

    def close(self) -> None:
        for zygote in list(self.zygotes.values()):
            zygote.close()
        self._scratch.cleanup()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
