"""A warm interpreter that forks one fresh process per check: isolation without importing the runtime again.

Started by `pool.py` as `python -m errorkb.verify.inside.zygote CONFIG_JSON`, one per (target, device),
or forked for a release by a stem that already loaded the runtime (`stem.py`, then `run`).
It activates its target and loads the runtime and the target module once (`child.prepare`), then
serves requests, one JSON line each on stdin, by forking. Each child starts from the same
pristine, preloaded state (nothing of an earlier check survives), puts itself in its own process
group, points stdout/stderr at its output file and runs the shared observe code of `child.py`.

Protocol (JSON lines): out `{"hello": ..., "ready": bool, "error": str|null, "fallback": bool}` once
(or `{"hello", "ready": false, "unshared": why}` from a stem's fork that must not serve); in
`{"id", "spec", "result", "output", "cwd", "timeout"}`; out `{"id", "pid"}` after the fork and
`{"id", "exit": returncode, "cpu": seconds, "stream": base64, "key": base64}` when the child is
reaped (negative: killed by that signal). The stream is what the child wrote to its file
descriptor 3, a pipe whose read end only this process holds: read as it comes, and once more
after the check's namespace is gone; the key is what came over descriptor 4, the one-shot
channel the child sends its stream's key on and closes before the snippet runs (`seal.py`).
Timeouts and process-group kills are the parent's job: it knows every child's pid. Inside the
sandbox (config `"jail": true`, see `jail.py`) those pids are of the sandbox's namespace, so
there each check gets a PID namespace of its own whose init is a timer: the kernel ends the
check and all it started when the timer runs out or when the check is reaped.

A device is never initialised here: the parent starts a CPU zygote with the runtime's CPU
environment (no GPU visible), and a zygote for another device refuses to fork if preloading
touched that device (`runtime.device_touched`), because a forked child cannot use a device
context it inherited (`fallback`: the pool then starts a fresh interpreter per check instead).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import selectors
import signal
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from errorkb.plugs import runtime_for
from errorkb.verify.inside.spec import KEY_FD, STREAM_FD, CheckSpec, ZygoteConfig

MAX_STREAM = 8 << 20


def main(argv: list[str]) -> int:
    config = ZygoteConfig.from_json(argv[0])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent owns Ctrl-C and closes us
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    requests = os.dup(0)
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # stray prints of an import must not corrupt the protocol
        os.dup2(quiet, fd)
    return run(config, requests, replies)


def run(config: ZygoteConfig, requests: int, replies: TextIO, unshared: str | None = None) -> int:
    """Prepare, say hello, serve. `unshared`: forked from a stem (`stem.py`) whose loaded modules
    this release's path finds elsewhere; the zygote then refuses, and so it does when its own
    preparation did not load `config.importers`, the modules that load the stem's shared ones
    in this release (without them, the stem's preloads would be modules this release never loads)."""
    from errorkb.verify.inside import child, jail

    if unshared is None:
        # What the first preparation loaded is frozen (`child._uncollected`): the collections of the preloads and
        # copies that follow walk only what they make; a module met later is imported unfrozen, for the copy before
        # its first check to find its classes among what is young (`observer._young_classes`).
        prepared = child.prepare(config.target, config.module, config.library, config.preload, config.runtime_site,
                                 freeze=True)
        error = prepared.error
        if error is None and config.device == "cpu":  # on a device, import no more than needed
            for name in child.runtime_preloads(config.target, config.module, config.library, config.runtime_site):
                child.preload(name)
            _preload_lazy_runtime(child, config.target, config.library)
        missing = [name for name in config.importers if name not in sys.modules]
        if error is None and missing:
            unshared = f"this release's preparation did not load {', '.join(missing)}"
    if unshared is not None:
        send(replies, {"hello": os.getpid(), "ready": False, "error": None, "unshared": unshared})
        return 0
    fallback = error is None and config.device != "cpu" and prepared.runtime is not None \
        and prepared.runtime.device_touched()
    if fallback:
        error = f"{config.device} was initialised while preloading; a forked child could not use it"
    send(replies, {"hello": os.getpid(), "ready": error is None, "error": error, "fallback": fallback})
    if error is not None:
        return 0
    _snapshot(child, config.target, config.library)  # copied once here, not in every check
    _freeze()
    serve(requests, replies, child, jail if config.jail else None)
    return 0


def _prepare(child: ModuleType, spec: CheckSpec) -> None:
    """A CPU zygote serves every module of its target: import the check's module here, once, before
    the first fork that needs it (what fails is the check's setup failure, reported by the check;
    a module outside the library's package is never imported: `child.prepare`)."""
    if spec.device != "cpu" or child.is_prepared(spec.target, spec.module, spec.runtime_site):
        return
    if child.prepare(spec.target, spec.module, spec.library, spec.preload, spec.runtime_site).error is None:
        for name in child.runtime_preloads(spec.target, spec.module, spec.library, spec.runtime_site):
            child.preload(name)
        _preload_lazy_runtime(child, spec.target, spec.library)
    _snapshot(child, spec.target, spec.library)
    _freeze()


def _preload_lazy_runtime(child: ModuleType, target: str, library: Any) -> None:
    """Import, once here, the runtime's submodules that the target's loaded modules name but that are not loaded.

    Library code imports some of them inside a function, on its first call (older releases of the knowledge base's
    library import the runtime's compiler so, in a helper their generation and attention masks call: 1-3 s of CPU),
    so each forked check paid that import again; `child.runtime_preloads` reads only the target module's own source.
    Which names are worth it is the runtime plug's (`preload_names`), as there; only the runtime's modules are ever
    imported here, never one the snippet names."""
    from errorkb.verify.inside import library as libraries

    runtime = runtime_for(library.runtime)
    roots = tuple(libraries.target_roots(target, library))
    for name in lazy_runtime_modules(runtime.preload_names, runtime.packages, roots):
        child.preload(name)


def lazy_runtime_modules(preload_names: Any, packages: tuple[str, ...], roots: tuple[str, ...]) -> list[str]:
    """What `preload_names` (a runtime plug's: source text → the runtime submodules it names that are not loaded)
    finds in the source of the loaded modules whose file lies under `roots` (Python source only: an extension module
    names nothing it imports later).

    It is handed the lines that name a module of the runtime's `packages` (`pkg.`), all at once: a library's loaded
    source is megabytes (4.5 MB, 156 modules, for one release), which the plug's pattern read in 0.1 s of CPU in
    every zygote; a literal search finds the few thousand lines that matter in a fifth of that."""
    marks = tuple(f"{package}." for package in packages)
    lines: list[str] = []
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        if not isinstance(file, str) or not file.endswith(".py") or not file.startswith(roots):
            continue
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for mark in marks:
            at = text.find(mark)
            while at != -1:
                end = text.find("\n", at)
                end = len(text) if end == -1 else end
                lines.append(text[text.rfind("\n", 0, at) + 1:end])
                at = text.find(mark, end)
    return list(dict.fromkeys(preload_names("\n".join(lines)))) if lines else []


def _snapshot(child: ModuleType, target: str, library: Any) -> None:
    """What every check's observer compares with, copied here once: the trusted namespaces and classes
    (`child.snapshot_python`, `observer.snapshot_trusted`), then the containers of Python's own modules and the
    target's (`observer.snapshot_tables`), and the runtime's kernel tables where it is loaded (the plug's
    `HeldState.tables`, `observer.snapshot_kernel_tables`)."""
    from errorkb.verify.inside import library as libraries
    from errorkb.verify.inside import observer

    # Where the profile's backends lie, as each check's `observer_config` asks before its snippet: the question
    # imports their parent package (`optimum`, where the target did not), so asked first in the check it changed the
    # module table every check found, and the walk `observer._reader_modules` takes here was taken again in each.
    child.backend_roots(library)
    child.snapshot_python()
    stdlib, site = child.python_roots()
    observer.snapshot_tables(tuple(stdlib), tuple(site), tuple(libraries.target_roots(target, library)))
    runtime = runtime_for(library.runtime)
    module = sys.modules.get(runtime.packages[0]) if runtime.packages else None
    if module is not None:
        observer.snapshot_kernel_tables(runtime.held_state(module))


def _freeze() -> None:
    """What the zygote made is permanent: a forked check's collector neither walks nor copies it; the observer knows
    every frozen object walked for binders (`observer.freeze_walked`), so the next module's copy walks only what is
    new."""
    from errorkb.verify.inside import observer

    observer.freeze_walked()


class _Child:
    """One forked check, seen from the zygote: its request, its pidfd, its stream, its key's channel."""

    def __init__(self, request_id: int, pidfd: int | None, stream: int, key: int):
        self.request_id, self.pidfd, self.stream, self.key = request_id, pidfd, stream, key
        self.data = bytearray()

    def read_key(self) -> bytes:
        """What the key's channel holds once the check is over (a few bytes; never blocking)."""
        try:
            return os.read(self.key, 256)
        except OSError:
            return b""
        finally:
            os.close(self.key)

    def read(self) -> bool:
        """What the stream holds now (never blocking); False once it is closed."""
        while True:
            try:
                chunk = os.read(self.stream, 1 << 16)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            if len(self.data) < MAX_STREAM:
                self.data += chunk[:MAX_STREAM - len(self.data)]


def serve(requests: int, replies: TextIO, child: ModuleType, sandbox: ModuleType | None = None) -> None:
    selector = selectors.DefaultSelector()
    selector.register(requests, selectors.EVENT_READ, "request")
    children: dict[int, _Child] = {}  # pid → the check
    buffer = b""
    while True:
        for key, _ in selector.select(timeout=None if _has_pidfd() else 0.02):
            if isinstance(key.data, tuple) and key.data[0] == "stream":
                running = children.get(key.data[1])
                if running is not None and not running.read():
                    selector.unregister(key.fd)
                continue
            if key.data != "request":
                continue
            chunk = os.read(requests, 1 << 16)
            if not chunk:  # the parent is done (or gone): leave nothing behind
                for pid in children:
                    kill_group(pid)
                if sandbox:
                    sandbox.release_all()
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                request = json.loads(line)
                spec = CheckSpec.from_dict(request["spec"])
                _prepare(child, spec)
                read_end, write_end = os.pipe2(os.O_CLOEXEC)
                key_read, key_write = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
                try:
                    inherited = [requests, replies.fileno(), read_end, key_read, *_selector_fds(selector),
                                 *(running.key for running in children.values())]
                    pid = fork_one(request, spec, child, inherited, sandbox, write_end, key_write)
                finally:
                    os.close(write_end)
                    os.close(key_write)
                os.set_blocking(read_end, False)
                pidfd = os.pidfd_open(pid) if _has_pidfd() else None
                if pidfd is not None:
                    selector.register(pidfd, selectors.EVENT_READ, pid)
                selector.register(read_end, selectors.EVENT_READ, ("stream", pid))
                children[pid] = _Child(request["id"], pidfd, read_end, key_read)
                send(replies, {"id": request["id"], "pid": pid})
        reap(children, selector, replies, sandbox)


def fork_one(request: dict[str, Any], spec: CheckSpec, child: ModuleType, inherited_fds: list[int],
             sandbox: ModuleType | None = None, stream: int | None = None, key: int | None = None) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    # the check's own PID namespace, with its timer
    jail = sandbox.Jail.open(request["result"], request.get("timeout"), request.get("scratch")) if sandbox else None
    pid = os.fork()
    if pid == 0:  # the child: never returns into the serve loop
        try:
            os.setpgid(0, 0)
            for fd in inherited_fds:
                try:
                    os.close(fd)
                except OSError:
                    pass
            # the stream's write end and the key's channel, at the places the check's process finds them
            moved = [(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 64), place)
                     for fd, place in ((stream, STREAM_FD), (key, KEY_FD)) if fd is not None]
            for unused in (stream, key):
                if unused is not None:
                    os.close(unused)
            for high, place in moved:
                os.dup2(high, place, inheritable=False)
                os.close(high)
            # a /dev/null of its own as fd 0: the zygote's (opened once) shares its flags with every check
            quiet = os.open(os.devnull, os.O_RDONLY)
            os.dup2(quiet, 0)
            os.close(quiet)
            output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(output, 1)
            os.dup2(output, 2)
            os.close(output)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.chdir(request["cwd"])
            if jail:  # before any snippet code: private /tmp, own folder only, no capabilities, no /proc
                jail.enter((STREAM_FD, KEY_FD), hide_proc=not runtime_for(spec.library.runtime).needs_proc(spec.device))
            child.run_and_exit(spec)
        except BaseException:  # anything here is the verifier's failure, say so
            import traceback

            traceback.print_exc()
        finally:
            os._exit(70)
    try:
        os.setpgid(pid, pid)  # also from this side, so a kill can never miss the group
    except OSError:
        pass
    if jail:
        jail.adopt(pid)
    return pid


def reap(children: dict[int, _Child], selector: selectors.BaseSelector, replies: TextIO,
         sandbox: ModuleType | None = None) -> None:
    for pid in list(children):
        cpu = None
        try:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            cpu = usage.ru_utime + usage.ru_stime  # the check's own CPU time, with what it waited for
        except ChildProcessError:
            done, status = pid, 255 << 8
        if done == 0:
            continue
        ended = children.pop(pid)
        memory = None
        if sandbox:
            memory = sandbox.release(pid)  # the check's namespace ends: nothing it started survives it
            if memory is not None:  # its memory cgroup's limit killed one of its processes: never a pass
                status = signal.SIGKILL
        else:
            kill_group(pid)  # what it started in its group; a daemon of its own session may keep writing
        ended.read()
        try:
            selector.unregister(ended.stream)
        except (KeyError, ValueError):
            pass
        os.close(ended.stream)
        if ended.pidfd is not None:
            selector.unregister(ended.pidfd)
            os.close(ended.pidfd)
        send(replies, {"id": ended.request_id, "exit": os.waitstatus_to_exitcode(status), "cpu": cpu,
                        "memory": memory, "stream": base64.b64encode(bytes(ended.data)).decode("ascii"),
                        "key": base64.b64encode(ended.read_key()).decode("ascii")})


def _selector_fds(selector: selectors.BaseSelector) -> list[int]:
    return [key.fd for key in selector.get_map().values()]


def _has_pidfd() -> bool:
    return hasattr(os, "pidfd_open")


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def send(replies: TextIO, message: dict[str, Any]) -> None:
    replies.write(json.dumps(message) + "\n")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
