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
hint), `FIRST` is empty and the finder answers nothing.

Imports `sys`, `_imp` and `_thread` alone (built in): this module is loaded before the guard is up. It also keeps the
hook's work within the CPU time the process has left (`cpu_left`).
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


def _trusted() -> "list[Any] | None":
    """`sys.path` from `FIRST` on, or None (no `.pth` snapshot, or the program removed that entry)."""
    path = sys.path
    if not FIRST or FIRST[0] not in path:
        return None
    return path[path.index(FIRST[0]):]


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
    except BaseException:
        return float("inf")


def load(module: str, first: "list[object] | None" = None) -> "ModuleType":
    """`errorkb.hook.<module>`, imported inside the guard; `first`: the `.pth`'s `sys.path[:1]`, kept for later. A
    module not loaded yet is not loaded with `CPU_MARGIN_S` or less of CPU time left (ImportError): the hook's work
    would spend what the program needs to exit as it would."""
    if first is not None and not FIRST:
        FIRST[:] = first
    name = f"errorkb.hook.{module}"
    if name not in sys.modules and cpu_left() <= CPU_MARGIN_S:
        raise ImportError(f"{name}: the process's CPU time limit is near")
    with inside():
        __import__(name)
    return sys.modules[name]
