"""A lean parent to fork test cases from, as a zygote is: an interpreter started once per test process that
imports only what the cases need (and, for the runtime's cases, the runtime), then forks one process per case.

Why: a worker of the full tier has imported torch, mkdocs, playwright, hypothesis and the tests of every module
it collected (1,500 modules and more). Forking it for each observer scenario cost about 1 s of CPU per case, most
of it the fork of a big heap (page tables, copy-on-write faults) and the observer's install, which copies the
namespace of every loaded module under the trusted roots; forked from this parent a case costs about 0.1 s
(`benchmarks/observer_fork.py`). Each case still runs in a process of its own, forked for it alone; the parent
keeps nothing between cases but the modules it imported.

`call(function, *args)` runs `function(*args)` in the parent and returns what it returned. Arguments travel
pickled; functions defined inside a test (a `configure` closure, a lambda) and code objects travel by where they
are written (module, qualified name, first line) and are rebuilt from the parent's own import of that module;
a module's global travels by its name, so an object a test module made at import is the parent's own, made at
its import, as it was in the worker. Anything else must pickle. A call interrupted in the caller (a test's
timeout) ends that parent; the next call starts another.
"""

from __future__ import annotations

import atexit
import importlib
import io
import os
import pickle
import socket
import struct
import subprocess
import sys
import tempfile
import traceback
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

SERVING = False  # True inside the lean parent: a case's own function forks there instead of asking for a parent
_ROOT = Path(__file__).resolve().parents[2]
_PARENTS: dict[tuple[str, ...], tuple[subprocess.Popen[bytes], socket.socket, Any]] = {}


def call(function: Any, *args: Any, preload: tuple[str, ...] = ()) -> Any:
    """`function(*args)` run in the lean parent that imported `preload` (started on first use, once per process)."""
    sock = _parent(preload)
    payload = io.BytesIO()
    _Pickler(payload).dump((function, args))
    try:
        _send(sock, payload.getvalue())
        status, value = pickle.loads(_receive(sock))
    except EOFError:
        process, _, log = _PARENTS.pop(preload)
        process.wait()
        log.seek(0)
        raise RuntimeError(f"the lean parent ({' '.join(preload) or 'plain'}) died, exit status {process.returncode}:"
                           f"\n{log.read().decode(errors='replace')[-4000:]}") from None
    except BaseException:  # interrupted mid-call (a test's timeout): its answer would be read as the next call's
        _end(preload, kill=True)
        raise
    if status == "error":
        raise RuntimeError(f"in the lean parent:\n{value}")
    return value


def fork_and_return(function: Callable[[], Any]) -> Any:
    """`function()` run in a fresh fork of this process, and what it returned, pickled back through a pipe; None when
    the fork returned nothing (it died first). The fork ends with `os._exit`, whatever happened in it: no handler,
    no `atexit` and no buffered output of this process's runs twice. For a case that must start from a process in a
    state of its own (a zygote that took its copies, a check forked from a zygote) without leaving that state here."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the fork
        try:
            os.close(read_end)
            os.write(write_end, pickle.dumps(function()))
        finally:
            os._exit(0)
    os.close(write_end)
    data = b""
    while chunk := os.read(read_end, 1 << 16):
        data += chunk
    os.close(read_end)
    os.waitpid(pid, 0)
    return pickle.loads(data) if data else None


def _parent(preload: tuple[str, ...]) -> socket.socket:
    if preload in _PARENTS:
        return _PARENTS[preload][1]
    ours, theirs = socket.socketpair()
    log = tempfile.TemporaryFile()  # noqa: SIM115 - kept open while the parent lives; closed by `_close`
    command = [sys.executable, "-c", "from tests.verify.lean_parent import serve; serve()",
               str(theirs.fileno()), *preload]
    process = subprocess.Popen(command, cwd=_ROOT, pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL,
                               stdout=log, stderr=log)
    theirs.close()
    _PARENTS[preload] = (process, ours, log)
    atexit.unregister(_close)
    atexit.register(_close)
    return ours


def _close() -> None:
    """Ends the parents with this process: each reads the end of its socket and exits."""
    while _PARENTS:
        _end(next(iter(_PARENTS)))


def _end(preload: tuple[str, ...], kill: bool = False) -> None:
    process, sock, log = _PARENTS.pop(preload)
    sock.close()
    if kill:
        process.kill()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()


def serve() -> None:
    """The parent's loop: import what it was asked to preload, then answer each call until the socket ends."""
    global SERVING
    SERVING = True
    fd, preload = int(sys.argv[1]), sys.argv[2:]
    sys.path.insert(0, str(_ROOT))
    for name in preload:
        importlib.import_module(name)
    sock = socket.socket(fileno=fd)
    while True:
        try:
            request = _receive(sock)
        except EOFError:
            return
        try:
            function, args = pickle.loads(request)
            answer = ("ok", function(*args))
        except BaseException:  # said to the caller, who raises it
            answer = ("error", traceback.format_exc())
        _send(sock, pickle.dumps(answer))


def _send(sock: socket.socket, data: bytes) -> None:
    sock.sendall(struct.pack("!Q", len(data)) + data)


def _receive(sock: socket.socket) -> bytes:
    size = struct.unpack("!Q", _exactly(sock, 8))[0]
    return _exactly(sock, size)


def _exactly(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(min(size - len(data), 1 << 20))
        if not chunk:
            raise EOFError
        data += chunk
    return bytes(data)


# -- what travels: functions and code by where they are written, a module's globals by name ---------------------


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._globals = {id(value): (module.__name__, name)
                         for module in list(sys.modules.values()) if module.__name__.startswith("tests.")
                         for name, value in vars(module).items()
                         if not isinstance(value, (type, types.ModuleType, types.FunctionType, str, bytes, int,
                                                   float, tuple, type(None)))}

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, types.FunctionType) and not _named(obj):
            cells = tuple(cell.cell_contents for cell in obj.__closure__ or ())
            return _function, (*_where(obj.__code__, obj.__module__), obj.__defaults__, obj.__kwdefaults__, cells)
        if isinstance(obj, types.CodeType):
            module = next((name for name, module in list(sys.modules.items())
                           if getattr(module, "__file__", None) == obj.co_filename), None)
            if module is None:
                raise pickle.PicklingError(f"{obj.co_qualname} ({obj.co_filename}) is in no loaded module")
            return _code, _where(obj, module)
        if id(obj) in self._globals:
            return _global, self._globals[id(obj)]
        return NotImplemented


def _named(function: types.FunctionType) -> bool:
    """Whether pickle finds `function` by its module and qualified name (a module-level function)."""
    found: Any = sys.modules.get(function.__module__)
    for part in function.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is function


def _where(code: types.CodeType, module: str) -> tuple[str, str, int]:
    return module, code.co_qualname, code.co_firstlineno


def _code(module: str, qualname: str, line: int) -> types.CodeType:
    """The code object written at `qualname`, line `line` of `module`, as this process imported it."""
    stack = [value.__code__ for value in vars(importlib.import_module(module)).values()
             if isinstance(value, types.FunctionType)]
    while stack:
        code = stack.pop()
        if code.co_qualname == qualname and code.co_firstlineno == line:
            return code
        stack.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    raise LookupError(f"no code {qualname} at line {line} of {module}")


def _function(module: str, qualname: str, line: int, defaults: tuple[Any, ...] | None,
              kwdefaults: dict[str, Any] | None, cells: tuple[Any, ...]) -> types.FunctionType:
    code = _code(module, qualname, line)
    function = types.FunctionType(code, vars(sys.modules[module]), code.co_name, defaults,
                                  tuple(types.CellType(value) for value in cells) or None)
    function.__kwdefaults__ = kwdefaults
    function.__qualname__ = qualname
    return function


def _global(module: str, name: str) -> Any:
    return getattr(importlib.import_module(module), name)
