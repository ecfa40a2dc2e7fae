"""One warm interpreter that many releases' zygotes are forked from: the runtime imported once.

The version matrix runs a few checks in each of many release environments; a zygote of its own
for each would import the runtime (and what every release loads with it) again and again, which
costs more than the checks. The pool starts a stem with one release's interpreter instead: it
imports the runtime and the `shared` modules from what every environment shares (its own
environment's site-packages left off the path meanwhile, so that a release that installs its own
copy of a package cannot make the stem useless for the others), then forks one zygote per
release on request.

Stages of one request:

1. `receive`: `{"id", "python", "prefix", "config"}` and two descriptors (the zygote's requests,
   read end; its replies, write end) in one message on stdin, a Unix SOCK_SEQPACKET socket.
2. `fork`: the child leaves the stem's channels behind and takes the two descriptors.
3. `become`: it takes the release's interpreter: its prefix, and its path (every entry under the
   stem's prefix moved under the release's).
4. `foreign_modules`: every module already loaded must be the very file the release's own path
   finds. One that is not (a release that pins its own numpy) makes the zygote answer "unshared"
   and exit: the pool then starts the release's own interpreter. Never a guess.
5. `zygote.run`: from here it is that release's zygote (`zygote.py`), which also refuses when its
   preparation did not load the modules that load the shared ones (`config["importers"]`).

Only interpreters whose startup is the same share a stem (the pool groups them by
`startup_signature`: the same executable and the same `.pth` files), so the startup state it
inherits is the release's own.

Protocol: out `{"hello": pid, "ready": bool, "error": str|null}` once; in (with two
descriptors) `{"id", "python", "prefix", "config"}`, out `{"id", "pid"}` after the fork; in
`{"kill": pid}` ends that zygote and its process group. End of input: every zygote is ended.
"""

from __future__ import annotations

import gc
import importlib
import importlib.machinery
import json
import os
import selectors
import signal
import socket
import sys
from pathlib import Path
from typing import Any

from errorkb.verify.inside.spec import LibrarySpec, ZygoteConfig
from errorkb.verify.inside.zygote import kill_group, send

_MESSAGE = 1 << 20  # one request, with the library profile in it


def main(argv: list[str]) -> int:
    config = json.loads(argv[0])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent owns Ctrl-C and closes us
    channel = socket.socket(fileno=os.dup(0))
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # stray prints of an import must not corrupt the protocol
        os.dup2(quiet, fd)
    path = list(sys.path)
    sys.path[:] = [entry for entry in path if not _under(entry, sys.prefix)]  # what every environment shares
    importlib.invalidate_caches()
    gc.disable()  # no collection walks the runtime's objects while they load (as `child.prepare`)
    error = preload(config)
    sys.path[:] = path
    gc.freeze()  # what the stem loaded is shared by every zygote forked from it, which collects none of it
    gc.enable()
    send(replies, {"hello": os.getpid(), "ready": error is None, "error": error})
    if error is not None:
        return 0
    serve(channel, replies)
    return 0


def preload(config: dict[str, Any]) -> str | None:
    """Import what every zygote forked from here would import first; None, or why not."""
    from errorkb.plugs import runtime_for
    from errorkb.verify.inside import child, jail, zygote  # noqa: F401  (the zygotes' own code, loaded once)

    try:
        runtime_for(LibrarySpec.from_dict(config["library"]).runtime).load()
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    for name in config.get("shared", []):
        try:
            importlib.import_module(name)
        except Exception:  # a release that loads it will then load it itself, faithfully
            continue
    return None


def serve(channel: socket.socket, replies: Any) -> None:
    selector = selectors.DefaultSelector()
    selector.register(channel, selectors.EVENT_READ)
    zygotes: set[int] = set()
    while True:
        if selector.select(timeout=1.0):
            message, fds, _, _ = socket.recv_fds(channel, _MESSAGE, 2)
            if not message:  # the pool is done (or gone): end every zygote
                for pid in zygotes:
                    kill_group(pid)
                return
            request = json.loads(message)
            if "kill" in request:
                if request["kill"] in zygotes:
                    kill_group(request["kill"])
            elif len(fds) == 2:
                pid = fork(request, fds, [channel.fileno(), replies.fileno(), selector.fileno()])
                zygotes.add(pid)
                send(replies, {"id": request["id"], "pid": pid})
            for fd in fds:
                os.close(fd)
        _reap(zygotes)


def fork(request: dict[str, Any], fds: list[int], stems: list[int]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid != 0:
        return pid
    try:  # the child: a zygote from here on, never back in the stem's loop
        os.setpgid(0, 0)
        for fd in stems:
            os.close(fd)
        requests, replies = fds
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(log, 2)
        os.close(log)
        become(request["python"], request["prefix"])
        foreign = foreign_modules()
        from errorkb.verify.inside import zygote

        config = ZygoteConfig.from_json(json.dumps(request["config"]))
        zygote.run(config, requests, os.fdopen(replies, "w", buffering=1),
                   unshared="; ".join(foreign) if foreign else None)
    except BaseException:  # the verifier's own failure: say so in the log the pool reads
        import traceback

        traceback.print_exc()
        os._exit(70)
    os._exit(0)


def become(python: str, prefix: str) -> None:
    """Take another environment's interpreter: its executable, prefix and import path."""
    old = sys.prefix
    sys.path[:] = [prefix + entry[len(old):] if _under(entry, old) else entry for entry in sys.path]
    sys.prefix = sys.exec_prefix = prefix
    sys.executable = python
    sys.path_importer_cache.clear()
    importlib.invalidate_caches()


def foreign_modules() -> list[str]:
    """Loaded modules that this path would find elsewhere, or not at all: 'name (loaded, found)'."""
    foreign = []
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        if "." in name or spec is None or spec.name != name or spec.origin in ("built-in", "frozen"):
            continue  # submodules follow their package; aliases (__main__) and the interpreter's own
        if not spec.has_location and not (spec.origin is None and spec.submodule_search_locations):
            continue  # made in memory (no file, not a namespace package): nothing on a path to compare
        found = importlib.machinery.PathFinder.find_spec(name, sys.path)
        same = found is not None and found.origin == spec.origin and \
            list(found.submodule_search_locations or []) == list(spec.submodule_search_locations or [])
        if not same:
            where = (found.origin or "a namespace package") if found else "nothing"
            foreign.append(f"{name} ({spec.origin or 'a namespace package'} is loaded; this path finds {where})")
    return sorted(foreign)


def startup_signature(python: Path) -> tuple[str, tuple[tuple[str, str], ...]]:
    """What an interpreter of a virtual environment runs at startup: its executable and its `.pth` files."""
    prefix = python.parent.parent
    pth = sorted((path.name, path.read_text(encoding="utf-8", errors="replace"))
                 for path in prefix.glob("lib/python*/site-packages/*.pth"))
    return os.path.realpath(python), tuple(pth)


def _under(entry: str, prefix: str) -> bool:
    return entry == prefix or entry.startswith(prefix + os.sep)


def _reap(zygotes: set[int]) -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        zygotes.discard(pid)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
