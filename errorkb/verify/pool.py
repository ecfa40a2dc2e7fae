"""The warm worker pool: one zygote per (target, device), a fresh forked process per check.

A check whose `without:` need the sandbox meets (`requirements.absence`) gets a zygote of its own
hidden set, started in a sandbox where those distributions do not exist: its interpreter never saw
them (the library caches what it found at import, `is_*_available()`), and the other checks keep
their shared zygotes. Never from a stem, whose sandbox shows everything.

Where many release environments each run a few checks (the version matrix), a zygote of its own
for each would import the runtime every time: environments `share`d with the pool get their CPU
zygotes forked from a stem instead (`stem.py`), one per startup signature, which imported the
runtime once. A fork the stem's modules do not fit says "unshared", and that environment gets a
zygote of its own interpreter, as any other.

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
import dataclasses
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errorkb.core.interpreter import python_command
from errorkb.core.project import LibraryProfile
from errorkb.plugs import runtime_for
from errorkb.verify.inside.jail import TIMER_MARGIN_S
from errorkb.verify.inside.library import module_problem, runtime_module
from errorkb.verify.inside.spec import CheckSpec, ZygoteConfig
from errorkb.verify.inside.stem import startup_signature
from errorkb.verify.plan import Check
from errorkb.verify.records import Observation, Status
from errorkb.verify.requirements import NOTHING_HIDDEN, Absence
from errorkb.verify.run import (
    Ended,
    Limits,
    Run,
    check_spec,
    child_env,
    collect,
    kill_group,
    library_spec,
    run_check,
    with_limits,
    working_copy,
)
from errorkb.verify.sandbox import Sandbox, memory_kind

ZygoteKey = tuple[str, str, str, str, tuple[str, ...]]  # target, device, module, python, what the sandbox hides
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
    key: bytes | None = None
    cpu: float | None = None
    memory: str | None = None  # the jail's words when the check ran out of its memory


class WorkerDied(RuntimeError):
    pass


class Zygote:
    """Client side of one `errorkb.verify.zygote` process."""

    def __init__(self, target: str, device: str, module: str, preload: list[str], scratch: Path,
                 library: LibraryProfile, python: Path, sandbox: Sandbox | None = None,
                 stem: Stem | None = None, importers: list[str] | None = None, absent: tuple[str, ...] = ()):
        if absent and (sandbox is None or stem is not None):
            raise ValueError("only the sandbox hides a `without:` need's distribution, in a zygote of its own")
        self.key: ZygoteKey = (target, device, module, str(python), absent)
        self.log = scratch / f"zygote-{target}-{device}-{os.getpid()}-{id(self)}.log"
        self.sandboxed = sandbox is not None  # its pids are the sandbox's: never kill them from here
        # A module of the runtime's package is one only an entry with `source.runtime` names (the loader's rule).
        runtime_site = device != "cpu" and module_problem(module, library.name) is not None \
            and runtime_module(module, runtime_for(library.runtime).packages)
        config = ZygoteConfig(target=target, device=device, module=module, library=library_spec(library),
                              preload=tuple(preload), jail=self.sandboxed, runtime_site=runtime_site)
        self.stem = stem
        self.process: subprocess.Popen[bytes] | _Forked | None = None
        self._command: tuple[list[str], dict[str, str]] | None = None
        if stem is None:
            argv = python_command(python, "-m", "errorkb.verify.inside.zygote", config.to_json())
            self._command = (sandbox.wrap(argv, device=device, writable=[scratch], jails=True, python=python,
                                          absent=absent) if sandbox else argv,
                             sandbox.env(device) if sandbox else child_env(library, device, python))
        self.lock = threading.Lock()  # guards `pending` and `next_id`
        self.write_lock = threading.Lock()  # one request line at a time; never held while reading
        self.pending: dict[int, _Pending] = {}
        self.next_id = 0
        self.hello = threading.Event()
        self.ready = False
        self.fallback = False  # the zygote cannot fork safely: run checks in fresh interpreters
        self.unshared: str | None = None  # forked from a stem whose modules this environment does not fit
        self.error: str | None = None
        self.dead: str | None = None
        stemmed = dataclasses.replace(config, importers=tuple(importers or ()))
        self.reader = threading.Thread(target=self._read, args=(python, stemmed), name=f"zygote-{target}-{device}",
                                       daemon=True)
        self.reader.start()

    def _read(self, python: Path, config: ZygoteConfig) -> None:
        if self.stem is not None:  # forked here, in this thread: a stem still loading keeps no one waiting
            try:
                self.process = self.stem.fork(config, python, self.log)
            except WorkerDied as why:
                self.unshared = f"the stem could not fork it: {why}"
                self.hello.set()
                return
        else:  # started by this thread, which lives as long as the zygote: the sandbox dies with the thread
            # that started it (--die-with-parent is a thread's parent-death signal), never with a caller's
            assert self._command is not None
            argv, env = self._command
            try:
                with self.log.open("wb") as log:
                    self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                                    env=env, start_new_session=True)
            except OSError as why:
                self.dead = f"the worker for {self.key[0]}/{self.key[1]} could not start: {why}"
                self.hello.set()
                return
        assert self.process is not None
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
                self.unshared = message.get("unshared")
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
                pending.stream = _decoded(message.get("stream")) or b""
                pending.key = _decoded(message.get("key"))
                cpu = message.get("cpu")
                pending.cpu = float(cpu) if isinstance(cpu, int | float) and not isinstance(cpu, bool) else None
                memory = message.get("memory")
                pending.memory = memory if isinstance(memory, str) else None
                pending.returncode = message["exit"]
                pending.exited.set()
        self._condemn(None)

    def _condemn(self, why: str | None) -> None:
        """The worker is gone, or no longer speaks its protocol: end it, fail the checks it held."""
        assert self.process is not None
        if why is not None:
            with self.lock:
                self.dead = self.dead or why
            self._kill()
        try:
            self.process.wait(_KILL_GRACE_S)
        except subprocess.TimeoutExpired:
            self._kill()
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

    def _kill(self) -> None:
        """End the worker and its process group (a stem's fork: the stem does, it knows its pid)."""
        if isinstance(self.process, _Forked):
            self.process.kill()
        elif self.process is not None:
            kill_group(self.process.pid)

    def wait_ready(self) -> None:
        if not self.hello.wait(_START_S):
            self._kill()
            raise WorkerDied(f"the worker for {self.key[0]}/{self.key[1]} did not start within {_START_S:g} s")
        if not self.ready and self.error is None and self.unshared is None:
            raise WorkerDied(self.dead or "the worker never said hello")

    def run(self, spec: CheckSpec, cwd: Path, scratch: Path, timeout: float) -> Ended:
        """Fork one child for `spec`, and wait for it at most `timeout` (the wall-clock backstop)."""
        with self.lock:
            request_id, self.next_id = self.next_id, self.next_id + 1
            pending = self.pending[request_id] = _Pending()
        request = {"id": request_id, "spec": json.loads(spec.to_json()), "cwd": str(cwd), "timeout": timeout,
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
            return Ended(pending.returncode, timed_out, time.perf_counter() - started, pending.stream, pending.key,
                         pending.cpu, pending.memory)
        finally:
            if pending.pid is not None and not self.sandboxed:
                kill_group(pending.pid)  # whatever the snippet left running in its group, however it ended
            with self.lock:
                self.pending.pop(request_id, None)

    def close(self) -> None:
        if self.process is None:  # never forked
            return
        try:
            self.process.stdin.close()  # type: ignore[union-attr]
        except OSError:
            pass
        self.reader.join(5)  # it ends when the worker closes its end: when it exits
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self._kill()
            self.process.wait()
        if self.reader.is_alive():
            self._kill()


class _Forked:
    """A zygote a stem forked, with what `Zygote` uses of a `Popen`: its two pipes, wait and kill."""

    def __init__(self, stem: Stem, pid: int, stdin: Any, stdout: Any):
        self.stem, self.pid, self.stdin, self.stdout = stem, pid, stdin, stdout
        self.returncode: int | None = None  # the stem reaps it; its end is the end of its replies

    def wait(self, timeout: float | None = None) -> int | None:
        return self.returncode

    def kill(self) -> None:
        self.stem.kill(self.pid)


class Stem:
    """Client side of one `errorkb.verify.stem` process: forks zygotes for other environments."""

    def __init__(self, python: Path, shared: list[str], scratch: Path, library: LibraryProfile,
                 sandbox: Sandbox | None = None):
        self.log = scratch / f"stem-{os.getpid()}-{id(self)}.log"
        config = {"library": dataclasses.asdict(library_spec(library)), "shared": shared}
        argv = python_command(python, "-m", "errorkb.verify.inside.stem", json.dumps(config))
        environments = [python.parent.parent.parent]  # the folder of the environments it forks for
        self.argv = sandbox.wrap(argv, device="cpu", writable=[scratch], jails=True, python=python,
                                 also=environments) if sandbox else argv
        self.env = sandbox.env("cpu") if sandbox else child_env(library, "cpu", python)
        self.channel, self._theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.process: subprocess.Popen[bytes] | None = None
        self.lock = threading.Lock()
        self.next_id = 0
        self.forked: dict[int, tuple[threading.Event, list[int]]] = {}
        self.hello = threading.Event()
        self.error: str | None = None
        # Started by a thread that lives as long as the stem: the sandbox ends it with the thread
        # that started it (--die-with-parent), and a check's thread ends with its release.
        self.reader = threading.Thread(target=self._run, name="stem", daemon=True)
        self.reader.start()

    def _run(self) -> None:
        with self.log.open("wb") as log, self._theirs:
            self.process = subprocess.Popen(self.argv, stdin=self._theirs.fileno(), stdout=subprocess.PIPE, stderr=log,
                                            env=self.env, start_new_session=True)
        for line in self.process.stdout:  # type: ignore[union-attr]
            try:
                message = json.loads(line)
            except ValueError:
                break  # not the stem's protocol: trust it no more
            if "hello" in message:
                self.error = None if message.get("ready") else str(message.get("error"))
                self.hello.set()
            elif isinstance(message, dict) and (waiting := self.forked.get(message.get("id", -1))) is not None:
                event, pid = waiting  # (a fork that timed out meanwhile is no longer waited for)
                pid.append(int(message["pid"]))
                event.set()
        self.error = self.error or f"the stem exited: {self.log.read_text(errors='replace')[-500:]}"
        kill_group(self.process.pid)
        self.hello.set()
        for event, _ in list(self.forked.values()):
            event.set()

    def fork(self, config: ZygoteConfig, python: Path, log: Path) -> _Forked:
        """A zygote of `python`'s environment, forked from this stem (raises WorkerDied)."""
        if not self.hello.wait(_START_S) or self.error:
            raise WorkerDied(self.error or f"the stem did not start within {_START_S:g} s")
        theirs_in, ours_in = os.pipe()  # the zygote's requests
        ours_out, theirs_out = os.pipe()  # its replies
        with self.lock:
            request_id, self.next_id = self.next_id, self.next_id + 1
            event, pid = self.forked[request_id] = (threading.Event(), [])
        request = {"id": request_id, "python": str(python), "prefix": str(python.parent.parent),
                   "config": json.loads(config.to_json()),
                   "log": str(log)}
        try:
            socket.send_fds(self.channel, [json.dumps(request).encode()], [theirs_in, theirs_out])
        except OSError as error:
            for fd in (ours_in, ours_out):
                os.close(fd)
            raise WorkerDied(f"the stem is gone ({error})") from None
        finally:
            os.close(theirs_in)
            os.close(theirs_out)
        event.wait(_FORK_S)
        with self.lock:
            self.forked.pop(request_id, None)
        if not pid:
            for fd in (ours_in, ours_out):
                os.close(fd)
            raise WorkerDied(self.error or f"the stem did not fork within {_FORK_S:g} s")
        return _Forked(self, pid[0], os.fdopen(ours_in, "wb"), os.fdopen(ours_out, "rb"))

    def kill(self, pid: int) -> None:
        try:
            self.channel.send(json.dumps({"kill": pid}).encode())
        except OSError:
            pass

    def close(self) -> None:
        self.channel.close()  # the stem ends every zygote it forked, then itself
        self.reader.join(10)
        if self.process is not None and self.process.poll() is None:
            kill_group(self.process.pid)
            self.process.wait()


class WorkerPool:
    """Zygotes started on first use, shared by every thread of a run; close when done."""

    def __init__(self, library: LibraryProfile, preload: list[str] | None = None, sandbox: Sandbox | None = None):
        self.library = library
        self.preload = list(preload or [])
        self.sandbox = sandbox
        self.zygotes: dict[ZygoteKey, Zygote] = {}
        self.lock = threading.Lock()
        self._scratch = tempfile.TemporaryDirectory(prefix="errorkb-pool-")
        self.scratch = Path(self._scratch.name)
        self.shared: dict[str, dict[str, str]] = {}  # python → {shared module: the module that loads it there}
        self.stems: dict[tuple[object, ...], Stem] = {}
        self.unshared: dict[str, str] = {}  # python → why a stem's fork could not serve it

    def share(self, python: Path, loads: dict[str, str]) -> None:
        """Let `python`'s CPU zygotes come from a stem: `loads` maps each module that its own
        release loads (measured in its own interpreter) to the module that loads it."""
        with self.lock:
            self.shared[str(python)] = dict(loads)

    def retire(self, python: Path) -> None:
        """Close `python`'s zygotes (a release the matrix is done with: its memory back)."""
        with self.lock:
            done = [key for key in self.zygotes if key[3] == str(python)]
            zygotes = [self.zygotes.pop(key) for key in done]
        for zygote in zygotes:
            zygote.close()

    def warm(self, keys: set[tuple[Any, ...]]) -> None:
        """Start the zygotes for these (target, device, module, python[, absent]) now, side by side, without
        waiting; a CPU zygote prepares every module of these it will serve before its first check."""
        served: dict[tuple[Any, ...], list[str]] = {}
        for target, device, module, python, *absent in keys:
            served.setdefault((target, device, python, *absent), []).append(module)
        for target, device, module, python, *absent in sorted(keys):
            self._start(target, device, module, python, absent[0] if absent else (),
                        serves=sorted(served[(target, device, python, *absent)]))

    def _start(self, target: str, device: str, module: str, python: str, absent: tuple[str, ...] = (),
               serves: list[str] | None = None) -> Zygote:
        # A CPU zygote loads the runtime and the library once and serves every target module (7 modules of one
        # release: one import of the runtime, not seven). The modules known when it starts (`serves`, else the
        # first check's) it is given as preloads, and prepares them before it copies the namespaces it forks
        # with (`child.runtime_preloads`); a module it meets later it prepares before that module's first check,
        # and copies them again. On a device each module keeps its own: importing one there may initialise it.
        preload = self.preload
        if device == "cpu":
            preload = [*preload, *(name for name in dict.fromkeys(serves or [module])
                                   if name != self.library.name and name not in preload)]
            module = self.library.name
        key = (target, device, module, python, absent)
        with self.lock:
            zygote = self.zygotes.get(key)
            if zygote is None or (zygote.dead and zygote.ready):  # died mid-run: start again
                loads = self.shared.get(python) if device == "cpu" and python not in self.unshared \
                    and not absent else None
                stem = self._stem(Path(python), loads) if loads is not None else None
                zygote = self.zygotes[key] = Zygote(target, device, module, preload, self.scratch, self.library,
                                                    Path(python), self.sandbox, stem,
                                                    sorted(set((loads or {}).values())), absent)
        return zygote

    def _stem(self, python: Path, loads: dict[str, str]) -> Stem:
        """The stem for interpreters that start as `python` does and load these shared modules (lock held)."""
        key = (startup_signature(python), tuple(sorted(loads)))
        stem = self.stems.get(key)
        if stem is None or stem.error is not None and stem.hello.is_set():
            stem = self.stems[key] = Stem(python, sorted(loads), self.scratch, self.library, self.sandbox)
        return stem

    def zygote(self, target: str, device: str, module: str, python: str, absent: tuple[str, ...] = ()) -> Zygote:
        zygote = self._start(target, device, module, python, absent)
        zygote.wait_ready()
        if zygote.unshared is not None:  # this environment does not fit its stem: its own interpreter, then
            with self.lock:
                self.unshared.setdefault(python, zygote.unshared)
                if self.zygotes.get(zygote.key) is zygote:
                    del self.zygotes[zygote.key]
            zygote.close()
            return self.zygote(target, device, module, python, absent)
        return zygote

    def run(self, check: Check, timeout: float, python: Path | None = None, *, wall_s: float | None = None,
            absent: Absence = NOTHING_HIDDEN) -> Run:
        """`check` in a process forked from a warm zygote: `timeout` seconds of CPU time, a generous
        wall-clock backstop (`Limits`), or `wall_s` seconds of it where given; `absent`: what the
        sandbox hides from it (`requirements.absence`)."""
        limits = Limits.of(timeout, wall_s)
        spec = with_limits(check_spec(check, self.library, self.preload, absent), limits)
        # A check left running by a dead worker may still write here: never let cleanup fail the run.
        with tempfile.TemporaryDirectory(prefix="check-", dir=self.scratch, ignore_cleanup_errors=True) as folder:
            scratch = Path(folder)
            try:
                interpreter = python or Path(sys.executable)
                zygote = self.zygote(check.target, check.device, check.module, str(interpreter), absent.paths)
                if zygote.fallback:
                    return run_check(check, self.library, timeout, interpreter, self.sandbox, wall_s=wall_s,
                                     absent=absent)
                if not zygote.ready:  # the same observation a fresh interpreter would have made
                    # The harness observed this itself (no snippet ran): complete, as an end line would be.
                    failed = Observation(status=Status.SETUP_FAILED, error=zygote.error)
                    return Run(failed, 0, False, "", 0, 0.0, timeout, ended=True, end_exit=0)
                # in the sandbox the jail makes the check's working folder from its snippet folder; without it, a copy
                work = check.snippet.path.parent if self.sandbox else working_copy(check.snippet.path.parent, scratch)
                ended = zygote.run(spec, work, scratch, limits.wall_s)
            except WorkerDied as died:
                return Run(Observation(status=Status.WORKER_DIED, error=str(died)), None, False, "", 0, 0.0, timeout)
            return collect(ended, scratch / "output.txt", limits, memory_kind(self.sandbox, check.device))

    def close(self) -> None:
        for zygote in list(self.zygotes.values()):
            zygote.close()
        for stem in list(self.stems.values()):
            stem.close()
        self._scratch.cleanup()

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _decoded(text: object) -> bytes | None:
    """Base64 from the zygote's reply; None when it is not that."""
    if not isinstance(text, str):
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
