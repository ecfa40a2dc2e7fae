"""The opt-in hook: when an uncaught exception is a documented error, say so after its traceback.

Three ways in, one behaviour (`errorkb.hook.explain.explain`):

- `errorkb hook install` writes `errorkb-hook.pth` into the environment's site-packages; its one
  line runs `EXCEPTHOOK` at every interpreter start. `errorkb hook uninstall` removes it.
- `import errorkb.hook` runs the same `EXCEPTHOOK` in this interpreter.
- `%load_ext errorkb.hook` in IPython, whose shell shows tracebacks itself (no `sys.excepthook`).

`EXCEPTHOOK` is the whole start-up cost: it defines a few small functions and chains them in front
of the hooks through which Python prints an error nobody caught, importing nothing (not even
`errorkb`: the `.pth` line must cost nothing when no exception happens). Each calls the previous
hook first, so the output and the exit status are Python's own, then imports the explainer
lazily, and swallows anything that goes wrong there: the hook never raises, and never changes the
exception. It does nothing at all for a `KeyboardInterrupt` (or any non-`Exception`, a thread's
`SystemExit` too): running Python code that calls `exec` (dataclasses, namedtuple, this very hook)
would clear the interpreter's note that the interrupt went unhandled, and the process would exit
with status 1 instead of dying by SIGINT. An error Python reports from inside the explainer's own
thread is Python's to print alone (`explain.describe_within`).

Where Python prints such an error, and so where the hook chains:

- `sys.excepthook`: the error that ends the program.
- `sys.unraisablehook`: an error Python can only report ("Exception ignored in ..."): in a `__del__`,
  an `atexit` callback, a thread started with `_thread` alone.
- `threading.excepthook`: an error that ends a thread, and `BaseEventLoop.default_exception_handler`:
  what asyncio logs ("Task exception was never retrieved", "Exception in callback"). Both live in
  modules the user's code imports lazily, if at all; importing them at start-up would cost every
  interpreter milliseconds. So a finder at the front of `sys.meta_path` watches for those two names
  only (a dictionary lookup per first import of a module, nothing more), lets the import system load
  the module as it would, chains on the hook once its code has run, and leaves `sys.meta_path` once
  both are chained. `threading.__excepthook__` stays Python's own, as its documentation says ("the
  original value"): code that calls it explicitly gets Python's printing alone. A loop whose
  exception handler the user set (`loop.set_exception_handler`) prints through theirs alone, as a
  `sys.excepthook` the user set does. asyncio's report is a log record: the block follows it only where
  the record went to `sys.stderr` (`explain.logs_to_stderr`), never after a report written to a file.
"""

from __future__ import annotations

import sys

# Compiled only once the user's code imports `threading` or asyncio (never at start-up: compiling costs
# about 0.3 µs a character at every interpreter start), in the namespace of `EXCEPTHOOK`, which holds it.
AFTER_IMPORT = """
def _errorkb_on_threading(module):
    previous = getattr(module, "excepthook", None)
    def _errorkb_threadhook(args, _previous=previous):
        _previous(args)
        _errorkb_explain(args.exc_type, args.exc_value, args.exc_traceback)
    _errorkb_threadhook.errorkb_hook = True
    if callable(previous) and not getattr(previous, "errorkb_hook", False):
        module.excepthook = _errorkb_threadhook
def _errorkb_logged_to_stderr(name):
    try:
        from errorkb.hook.explain import logs_to_stderr
        return logs_to_stderr(name)
    except BaseException:
        return False
def _errorkb_on_asyncio(module):
    loop = getattr(module, "BaseEventLoop", None)
    previous = getattr(loop, "default_exception_handler", None)
    def default_exception_handler(self, context, _previous=previous):
        _previous(self, context)
        error = context.get("exception") if isinstance(context, dict) else None
        if isinstance(error, Exception) and _errorkb_logged_to_stderr("asyncio"):
            _errorkb_explain(type(error), error, None)
    default_exception_handler.errorkb_hook = True
    default_exception_handler.__doc__ = getattr(previous, "__doc__", None)
    if callable(previous) and not getattr(previous, "errorkb_hook", False):
        loop.default_exception_handler = default_exception_handler
_ERRORKB_CHAINS = {"threading": _errorkb_on_threading, "asyncio.base_events": _errorkb_on_asyncio}
def _errorkb_find_spec(finder, name, path, target):
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
    def exec_module(module):
        run(module)
        loader.__dict__.pop("exec_module", None)
        _errorkb_done(finder, name, module)
    loader.exec_module = exec_module
    return spec
def _errorkb_loaded(finder):
    for name in [name for name in finder.waiting if name in sys.modules]:
        _errorkb_done(finder, name, sys.modules[name])
def _errorkb_done(finder, name, module):
    finder.waiting.discard(name)
    try:
        _ERRORKB_CHAINS[name](module)
    except BaseException:
        pass
    if not finder.waiting and finder in sys.meta_path:
        sys.meta_path.remove(finder)
"""

EXCEPTHOOK = """
_errorkb_again = getattr(sys.excepthook, "errorkb_hook", 0) or getattr(sys.unraisablehook, "errorkb_hook", 0)
def _errorkb_explain(kind, value, traceback):
    if not isinstance(value, Exception):
        return
    try:
        from errorkb.hook.explain import explain
        explain(kind, value, traceback)
    except BaseException:
        pass
def _errorkb_excepthook(kind, value, traceback, _previous=sys.excepthook):
    _previous(kind, value, traceback)
    _errorkb_explain(kind, value, traceback)
def _errorkb_unraisablehook(unraisable, _previous=sys.unraisablehook):
    _previous(unraisable)
    _errorkb_explain(unraisable.exc_type, unraisable.exc_value, unraisable.exc_traceback)
_errorkb_excepthook.errorkb_hook = _errorkb_unraisablehook.errorkb_hook = True
if not getattr(sys.excepthook, "errorkb_hook", False):
    sys.excepthook = _errorkb_excepthook
if not getattr(sys.unraisablehook, "errorkb_hook", False):
    sys.unraisablehook = _errorkb_unraisablehook
_ERRORKB_AFTER_IMPORT = AFTER_IMPORT_SOURCE
def _errorkb_after_import(name, path=None, target=None):
    if name not in _errorkb_after_import.waiting:
        return None
    try:
        "_errorkb_find_spec" in globals() or exec(_ERRORKB_AFTER_IMPORT, globals())
    except BaseException:
        return None
    return _errorkb_find_spec(_errorkb_after_import, name, path, target)
_errorkb_after_import.find_spec = _errorkb_after_import
_errorkb_after_import.waiting = set(("threading", "asyncio.base_events"))
if not _errorkb_again and "_errorkb_after_import" not in [getattr(one, "__name__", "") for one in sys.meta_path]:
    sys.meta_path.insert(0, _errorkb_after_import)
    if "threading" in sys.modules or "asyncio.base_events" in sys.modules:
        exec(_ERRORKB_AFTER_IMPORT, globals())
        _errorkb_loaded(_errorkb_after_import)
""".replace("AFTER_IMPORT_SOURCE", repr(AFTER_IMPORT))

# The `.pth` line: site.py runs a line that starts with `import`; the rest is `EXCEPTHOOK`, verbatim.
PTH_LINE = f"import sys; exec({EXCEPTHOOK!r}, {{'sys': sys}})\n"


def install() -> None:
    """Chain the hook in front of `sys.excepthook` (once, however often it is called)."""
    exec(EXCEPTHOOK, {"sys": sys})


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext errorkb.hook`: IPython shows the traceback as usual, then the explainer runs."""

    def handler(shell: object, kind: type[BaseException], value: BaseException, traceback: object,
                tb_offset: int | None = None) -> None:
        shell.showtraceback((kind, value, traceback), tb_offset=tb_offset)  # type: ignore[attr-defined]
        try:
            from errorkb.hook.explain import explain

            explain(kind, value, traceback)
        except BaseException:
            pass

    ipython.set_custom_exc((Exception,), handler)  # type: ignore[attr-defined]


def unload_ipython_extension(ipython: object) -> None:
    ipython.set_custom_exc((), None)  # type: ignore[attr-defined]


install()
