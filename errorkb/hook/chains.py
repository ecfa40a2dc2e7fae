"""The hook's chains on `threading.excepthook` and asyncio's `BaseEventLoop.default_exception_handler`.

Both live in modules the user's code imports lazily, if at all, so the `.pth`'s code (`errorkb.hook.EXCEPTHOOK`)
puts a finder at the front of `sys.meta_path` that waits for those two names only, and imports this module the
first time one of them is imported (never at start-up: its code costs nothing until then). `find_spec` lets the
import system load the module as it would, chains once its code has run, and leaves `sys.meta_path` once both are
chained. The finder carries the state: `finder.waiting` (the names still to chain) and `finder.explain` (the
`.pth`'s function that prints the block after Python's own report, and never raises).

Nothing here imports `threading` or asyncio: this runs while one of them is being imported; nor `typing` or
`__future__` (annotations are strings): the import costs the first `import threading` as little as it can.
"""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (milliseconds, at the first `import threading`)
if TYPE_CHECKING:
    from typing import Any

    Finder = Any  # the `.pth`'s finder: a function with the attributes `waiting` and `explain`


def on_threading(finder: "Finder", module: "Any") -> None:
    """Chain in front of `threading.excepthook`; `threading.__excepthook__` stays Python's own ("the original
    value"), and a hook the user sets later replaces this one, as it would Python's."""
    previous = getattr(module, "excepthook", None)

    def _errorkb_threadhook(args: "Any", _previous: "Any" = previous) -> None:
        _previous(args)
        finder.explain(args.exc_type, args.exc_value, args.exc_traceback)

    _errorkb_threadhook.errorkb_hook = True  # type: ignore[attr-defined]
    if callable(previous) and not getattr(previous, "errorkb_hook", False):
        module.excepthook = _errorkb_threadhook


def _logged_to_stderr(name: str) -> bool:
    try:
        from errorkb.hook.explain import logs_to_stderr

        return logs_to_stderr(name)
    except BaseException:
        return False


def on_asyncio(finder: "Finder", module: "Any") -> None:
    """Chain on the loop's default exception handler (a task's exception never retrieved, an exception in a
    callback): after asyncio's report, the block, only where the report went to `sys.stderr`. A handler the
    user set on the loop (`loop.set_exception_handler`) prints alone."""
    loop = getattr(module, "BaseEventLoop", None)
    previous = getattr(loop, "default_exception_handler", None)

    def default_exception_handler(self: "Any", context: "Any", _previous: "Any" = previous) -> None:
        _previous(self, context)
        error = context.get("exception") if isinstance(context, dict) else None
        if isinstance(error, Exception) and _logged_to_stderr("asyncio"):
            finder.explain(type(error), error, None)

    default_exception_handler.errorkb_hook = True  # type: ignore[attr-defined]
    default_exception_handler.__doc__ = getattr(previous, "__doc__", None)
    if callable(previous) and not getattr(previous, "errorkb_hook", False):
        loop.default_exception_handler = default_exception_handler  # type: ignore[union-attr]


CHAINS = {"threading": on_threading, "asyncio.base_events": on_asyncio}


def find_spec(finder: "Finder", name: str, path: "Any", target: "Any") -> "Any":
    """The spec the finders after `finder` give for `name`, its loader's `exec_module` wrapped to chain once the
    module's code has run. A loader that is a class or keeps no attributes is left alone (nothing chained)."""
    later = sys.meta_path[sys.meta_path.index(finder) + 1:] if finder in sys.meta_path else []
    for other in later:
        spec = other.find_spec(name, path, target) if hasattr(other, "find_spec") else None
        if spec is not None:
            break
    else:
        return None
    loader = spec.loader
    run = getattr(loader, "exec_module", None)
    if run is None or isinstance(loader, type) or not hasattr(loader, "__dict__"):
        return spec

    def exec_module(module: "Any") -> None:
        run(module)
        loader.__dict__.pop("exec_module", None)
        done(finder, name, module)

    loader.exec_module = exec_module  # type: ignore[method-assign,union-attr]
    return spec


def loaded(finder: "Finder") -> None:
    """Chain on those of the two modules that were imported before the finder was in place."""
    for name in [name for name in finder.waiting if name in sys.modules]:
        done(finder, name, sys.modules[name])


def done(finder: "Finder", name: str, module: "Any") -> None:
    finder.waiting.discard(name)
    try:
        CHAINS[name](finder, module)
    except BaseException:
        pass
    if not finder.waiting and finder in sys.meta_path:
        sys.meta_path.remove(finder)
