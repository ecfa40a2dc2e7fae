"""The hook's own imports never load a file of the program's folder.

The hook imports its modules (and they the standard library's and their dependencies) at a moment the program did
not choose: when an error happened, at the first `import threading`. Python searches `sys.path`, whose first entry
is the program's folder (the script's, or `''` for `-c` and a console), put there after the `.pth` ran: a script
named `random.py`, `email.py`, `csv.py` or `errorkb.py` beside the program would be imported and run by the hook,
printing what the program never printed (round five, tests/test_hook_round_five.py). Python itself avoids this only
under `-P`/PYTHONSAFEPATH.

So while the hook imports, in the thread that imports (and in the explainer's own thread), a finder at the front of
`sys.meta_path` (after the `.pth`'s own, which chains on the modules it waits for, `threading` among them, whoever
imports them) resolves every top-level module on `sys.path` from the entry that was first when the `.pth` ran
(`FIRST`) on: without the entries put in front of it since, as `-P` would. Built-in and frozen modules are left to
their own importers; a name found nowhere there is left to the import system as ever. Other threads import as they
would: the finder answers only for the threads inside. Where the `.pth` did not run (`import errorkb.hook`, pytest's
hint), `FIRST` is empty and the guard starts at the entry where Python's own path begins (`_first`).

`sys.modules` is the program's as well (round eight, tests/test_hook_round_eight.py): a module the finder loaded for
the hook stays there, where the program's own later `import` would find it in place of the file of its folder under
that name (a script's `csv.py`); and a module the program loaded from its folder under a name the hook's code imports
is what the hook's `import` gets (its functions would run for the hook). So the last thread to leave the hook's
imports takes out of `sys.modules` each module they loaded that the program's own path resolves to another file
(`_give_back`), and the explainer is not loaded at all while a module named like one the explainer imports is one
the program loaded from its folder (`foreign`): the hook adds nothing then, as with a program's own `errorkb`.

Imports `sys`, `_imp` and `_thread` alone (built in): this module is loaded before the guard is up. It also keeps the
hook's work within the CPU time the process has left (`cpu_left`), and the explainer's import within a deadline
(`DEADLINE_S`, `_import_within`; round fourteen).
"""

import _imp
import _thread
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Any

FIRST: list[object] = []  # sys.path[:1] as the `.pth` saw it: where Python's own path began
_INSIDE: dict[int, int] = {}  # thread id: how many of the hook's imports it is inside


_BEFORE: set[str] = set()  # the names in `sys.modules` when the first thread entered the hook's imports


def _first() -> "list[Any]":
    """`FIRST`; where no `.pth` ran (pytest's hint, `import errorkb.hook`), the entry of `sys.path` where Python's own
    path begins, as the `.pth` would have seen it: the first of `PYTHONPATH`'s entries (absolute, as Python puts them),
    else the standard library's zip, else its folder; nothing where the standard library's folder is not on the path.
    Round nine: pytest's hint run without the `.pth` left the guard off, and ran a test folder's `json.py`."""
    if FIRST:
        return FIRST
    path, os = sys.path, sys.modules.get("os")
    stdlib = getattr(sys, "_stdlib_dir", None)
    if os is None or stdlib not in path:
        return []
    at = path.index(stdlib)
    if at and isinstance(path[at - 1], str) and path[at - 1].endswith(".zip"):
        at -= 1
    given = "" if sys.flags.ignore_environment else os.environ.get("PYTHONPATH", "")
    entries = [os.path.abspath(entry) for entry in given.split(os.pathsep) if entry]
    while entries and at and path[at - 1] == entries[-1]:
        at, entries = at - 1, entries[:-1]
    return path[at:at + 1]


def _trusted() -> "list[Any] | None":
    """`sys.path` from `_first()` on, or None (no `.pth` snapshot, or the program removed that entry)."""
    path, first = sys.path, _first()
    if not first or first[0] not in path:
        return None
    return path[path.index(first[0]):]


def _programs() -> "list[Any]":
    """The entries of `sys.path` in front of `_first()`: the program's own (its folder), put there after Python's."""
    path, first = sys.path, _first()
    if not first or first[0] not in path:
        return []
    return path[:path.index(first[0])]


def _origin(module: object) -> object:
    return getattr(getattr(module, "__spec__", None), "origin", None)


def _found(name: str, path: "list[Any]") -> object:
    """The file the path finder gives for top-level `name` on `path` (None: none, or a namespace portion, which a
    module found later on the path wins over)."""
    if not path or name in sys.builtin_module_names or _imp.is_frozen(name):
        return None
    spec = sys.modules["_frozen_importlib_external"].PathFinder.find_spec(name, path)
    return None if spec is None or spec.loader is None else spec.origin


def _give_back(before: "set[str]") -> None:
    """Take out of `sys.modules` each top-level module loaded since `before` (and its submodules) that the program's
    own entries of the path resolve to another file: the program's `import` of that name finds its own file, as
    without the hook. Modules the hook's code holds stay alive through it; a later error loads them again. Those of
    the standard library's names are noted in `_LOADED`."""
    loaded = [name for name in list(sys.modules) if "." not in name and name not in before]
    _LOADED.update(name for name in loaded if name in getattr(sys, "stdlib_module_names", ()))
    programs = _programs()
    if not programs:
        return
    for name in loaded:
        theirs = _found(name, programs)
        if theirs is not None and theirs != _origin(sys.modules.get(name)):
            for one in [one for one in list(sys.modules) if one == name or one.startswith(name + ".")]:
                sys.modules.pop(one, None)


# The top-level modules the explainer's code imports (CPython 3.11: names of the standard library's, not built in or
# frozen, which no file of the program's can stand in for, and the matcher's dependency), measured by
# tests/test_hook_round_eight.py, which fails when the explainer imports one more; with `_LOADED`, what the hook's
# imports loaded in this process (another Python's names), the modules `foreign` looks at.
IMPORTS = frozenset({
    "__future__", "_bisect", "_bz2", "_compression", "_csv", "_datetime", "_json", "_lzma", "_opcode", "_random",
    "_sha512", "_socket", "_struct", "_typing", "_weakrefset", "array", "ast", "base64", "binascii", "bisect", "bz2",
    "calendar", "collections", "contextlib", "copy", "copyreg", "csv", "ctypes", "dataclasses", "datetime", "dis",
    "email", "enum", "fnmatch", "functools", "importlib", "inspect", "ipaddress", "json", "keyword", "linecache",
    "locale", "logging", "lzma", "math", "opcode", "operator", "packaging", "pathlib", "quopri", "random", "re",
    "reprlib", "resource", "select", "selectors", "shutil", "signal", "socket", "string", "struct", "sysconfig",
    "tempfile", "textwrap", "threading", "token", "tokenize", "traceback", "types", "typing", "urllib", "warnings",
    "weakref", "zipfile", "zlib",
})
_LOADED: set[str] = set()


def foreign() -> bool:
    """Whether a module the explainer's code imports (`IMPORTS`, `_LOADED`) is one the program loaded from its own
    entries of the path (`_programs`: its folder's `json.py`): the explainer's `import` of that name would get it, and
    run its code. A module of the program's under another name (`secrets.py`, `queue.py`) is none of the hook's; one
    put in `sys.modules` some other way (a package's stand-in for a module the standard library dropped) is not the
    program's folder's; nor is the file the hook's own path gives (a program run in the standard library's folder)."""
    programs, trusted = _programs(), _trusted()
    if not programs or trusted is None:
        return False
    for name in IMPORTS | _LOADED:
        origin = _origin(sys.modules.get(name))
        if origin is not None and _found(name, programs) == origin != _found(name, trusted):
            return True
    return False


class _Finder:
    """The guard's finder: top-level names, for the threads inside the hook's imports only."""

    @staticmethod
    def find_spec(name: str, path: "Any" = None, target: "Any" = None) -> "Any":
        if path is not None or _thread.get_ident() not in _INSIDE or name in sys.builtin_module_names \
                or _imp.is_frozen(name):
            return None
        trusted = _trusted()
        if trusted is None:
            return None
        return sys.modules["_frozen_importlib_external"].PathFinder.find_spec(name, trusted, target)


FINDER = _Finder()


class inside:
    """`with inside():` the current thread's imports are the hook's (nested and per thread)."""

    def __enter__(self) -> None:
        ident = _thread.get_ident()
        if not _INSIDE and _first():
            _BEFORE.clear()
            _BEFORE.update(sys.modules)
        _INSIDE[ident] = _INSIDE.get(ident, 0) + 1
        if FINDER not in sys.meta_path:  # after the `.pth`'s finder: the modules it waits for are chained as ever
            waiting = [at for at, one in enumerate(sys.meta_path)
                       if getattr(one, "__name__", 0) == "_errorkb_after_import"]
            sys.meta_path.insert(waiting[0] + 1 if waiting else 0, FINDER)

    def __exit__(self, *exc: object) -> None:
        ident = _thread.get_ident()
        _INSIDE[ident] -= 1
        if not _INSIDE[ident]:
            del _INSIDE[ident]
        if not _INSIDE and FINDER in sys.meta_path:
            sys.meta_path.remove(FINDER)
        if not _INSIDE and _BEFORE:
            try:
                _give_back(_BEFORE)
            finally:
                _BEFORE.clear()


CPU_MARGIN_S = 1.0  # CPU seconds the hook always leaves the process (RLIMIT_CPU counts whole seconds)


def cpu_left() -> float:
    """The CPU seconds the process may still use before its soft RLIMIT_CPU (`ulimit -t`: a judge's, a batch
    system's), where the kernel sends SIGXCPU, whose default ends the process (status -24 where Python's own printing
    exits 1: round seven); infinite without a limit (or where none can be read: Windows). `resource` is imported
    inside the guard: a `resource.py` of the program's folder never runs."""
    try:
        with inside():
            import resource

        soft = resource.getrlimit(resource.RLIMIT_CPU)[0]
        if soft == resource.RLIM_INFINITY or soft < 0:
            return float("inf")
        used = resource.getrusage(resource.RUSAGE_SELF)
        return float(soft - (used.ru_utime + used.ru_stime))
    except Exception:
        return float("inf")


HOME: list[str] = []  # the folder the `.pth` loads the package from (`call`); empty where no `.pth` line called
_PACKAGE: "dict[str, ModuleType]" = {}  # the package's modules, out of `sys.modules` while the name is the program's
_THEIRS: "dict[str, ModuleType]" = {}  # what the program held under the package's names while the hook's work runs
_USERS: list[int] = []  # how many of the hook's calls are inside `package` (nested, or in threads)


def _ours(name: str) -> bool:
    """A name of the package's (this module aside: the `.pth` loads it alone, and it stays where it is)."""
    return (name == "errorkb" or name.startswith("errorkb.")) and name != __name__


class package:
    """`with package():` `sys.modules["errorkb"]` (and its submodules) are the package the `.pth` loads from `HOME`
    while the hook works, and, once the last call leaves, whatever the program's own path gives under that name again
    (round ten). The `.pth` loads the package itself, outside the guard's imports (`_give_back` never saw it): a
    program's own `errorkb.py`, imported after an error it survived, got the package; imported before it, the hook
    took the program's module for the package (and could not load). Where the program's path gives the package
    itself (no file of its own under that name), the package stays in `sys.modules`, as ever."""

    def __enter__(self) -> None:
        _USERS.append(1)
        if len(_USERS) == 1:
            _threading_importable()
        if len(_USERS) > 1 or not HOME:
            return
        modules, home = sys.modules, HOME[0]
        if _PACKAGE or _origin(modules.get("errorkb")) != _package_origin(home):
            for name in [name for name in list(modules) if _ours(name)]:
                _THEIRS[name] = modules.pop(name)
            modules.update(_PACKAGE)
            _PACKAGE.clear()
            if "errorkb" not in modules:
                spec = modules["_frozen_importlib_external"].PathFinder.find_spec("errorkb", [home])
                modules["_frozen_importlib"]._load(spec)

    def __exit__(self, *exc: object) -> None:
        _USERS.pop()
        if not _USERS:
            _threading_back()
        if _USERS or not HOME:
            return
        modules = sys.modules
        theirs = _found("errorkb", _programs())
        if not _THEIRS and (theirs is None or theirs == _origin(modules.get("errorkb"))):
            return
        for name in [name for name in list(modules) if _ours(name)]:
            _PACKAGE[name] = modules.pop(name)
        modules.update(_THEIRS)
        _THEIRS.clear()


_NO_EXCEPTHOOK: list[bool] = []  # `sys.excepthook` was None when the first of the hook's calls entered `package`


def _threading_importable() -> None:
    """`threading` can be imported while `sys.excepthook` is None (round eleven): its own import fails then (its main
    thread asks `_make_invoke_excepthook`: "sys.excepthook is None"), and the explainer imports it, and modules that
    import it (`zipfile`, for `importlib.metadata`) as it runs: a program that set `sys.excepthook = None` got
    Python's report ("Error in sys.excepthook", "Original exception was") and no block. Python's own hook stands in
    while the hook works (`package`); once the last call left, `_threading_back` sets None again."""
    if sys.excepthook is None and "threading" not in sys.modules:
        _NO_EXCEPTHOOK.append(True)
        sys.excepthook = sys.__excepthook__


def _threading_back() -> None:
    """`sys.excepthook` None again and `threading` out of `sys.modules` (the hook's modules hold it), so that the
    program's own `import threading` fails as it would without errorkb."""
    if _NO_EXCEPTHOOK:
        _NO_EXCEPTHOOK.clear()
        if sys.excepthook is sys.__excepthook__:
            sys.excepthook = None  # type: ignore[assignment]
        sys.modules.pop("threading", None)



def _package_origin(home: str) -> object:
    spec = sys.modules["_frozen_importlib_external"].PathFinder.find_spec("errorkb", [home])
    return None if spec is None else spec.origin


def call(first: "list[object]", module: str, name: str, *args: object) -> object:
    """The `.pth` line's entry (`_errorkb_call`, which loads this module alone): `name` of `errorkb.hook.<module>`
    called with `args`, the package (the one this file is of) in `sys.modules` meanwhile (`package`)."""
    if not HOME:
        path = sys.modules["os"].path
        HOME.append(path.dirname(path.dirname(path.dirname(path.abspath(__file__)))))
    with package():
        sys.modules["errorkb"].hook_by_pth = 1  # type: ignore[attr-defined]
        return load(module, first).__dict__[name](*args)


def load(module: str, first: "list[object] | None" = None) -> "ModuleType":
    """`errorkb.hook.<module>`, imported inside the guard; `first`: the `.pth`'s `sys.path[:1]`, kept for later. A
    module not loaded yet is not loaded with `CPU_MARGIN_S` or less of CPU time left (ImportError): the hook's work
    would spend what the program needs to exit as it would."""
    if first is not None and not FIRST:
        FIRST[:] = first
    name = f"errorkb.hook.{module}"
    if name not in sys.modules and cpu_left() <= CPU_MARGIN_S:
        raise ImportError(f"{name}: the process's CPU time limit is near")
    if module == "explain" and foreign():  # the chains import nothing the program could have replaced
        raise ImportError(f"{name}: a module the program loaded from its own folder is named like one it imports")
    if module == "explain" and not _ready(sys.modules.get(name)):
        _import_within(name, DEADLINE_S)
    with inside():
        __import__(name)
    return sys.modules[name]


DEADLINE_S = 5.0  # the most each stage of the hook's work may add to an exit: the explainer's import (under the
# program's conditions: `-X tracemalloc=25`, 9 s of it), then its reading of the error, which runs the user's code


def _ready(module: object) -> bool:
    """Whether `module` is imported whole (not None, nor one another thread is still importing: its spec says so)."""
    return module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False)


def _import_within(name: str, seconds: float) -> None:
    """Import `name` (inside the guard) in a thread of its own, waiting for it `seconds` at most; ImportError when it
    is not imported by then. Round fourteen: the explainer's import ran in the hook's thread, bounded by nothing (the
    deadline bounded its reading of the error alone): under `-X tracemalloc=25` it took 9 s of a 16 to 26 s exit
    (every allocation records 25 frames), and a thread of the program's that holds an import lock the explainer's
    imports wait for (its own finder stuck importing `json`) held the exit up for ever. Its own deadline, not one
    shared with the reading: an import compiled from source (no bytecode written) on a busy machine takes seconds.
    The thread is `_thread`'s (never `threading`'s tracer, never waited for at the exit); one past the deadline is
    left to finish, or to the interpreter's exit.
    While the interpreter exits no thread starts (`explain._describe_finalizing`): the import runs here, as ever."""
    if sys.is_finalizing():
        return
    if seconds <= 0:
        raise ImportError(f"{name}: the hook's deadline passed")
    if "threading" not in sys.modules:  # its first import makes the importing thread its `main_thread()`, for ever
        with inside():
            import threading  # noqa: F401
    done = _thread.allocate_lock()
    done.acquire()

    def run() -> None:
        try:
            with inside():
                __import__(name)
        except:  # noqa: E722 (no name to look up: a program may have replaced `builtins.BaseException`, round five)
            pass
        finally:
            done.release()

    try:
        _thread.start_new_thread(run, ())
    except RuntimeError:  # no new thread while the interpreter shuts down (3.12's atexit): imported here, as ever
        return
    if not done.acquire(timeout=seconds) or not _ready(sys.modules.get(name)):
        raise ImportError(f"{name}: not imported within the hook's deadline")
