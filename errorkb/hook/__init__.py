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
  only (a set lookup per first import of a module, nothing more); at the first of them it imports
  `errorkb.hook.chains`, which lets the import system load the module as it would, chains on the hook
  once its code has run, and leaves `sys.meta_path` once both are chained. `threading.__excepthook__`
  stays Python's own, as its documentation says ("the original value"): code that calls it explicitly
  gets Python's printing alone. A loop whose exception handler the user set
  (`loop.set_exception_handler`) prints through theirs alone, as a `sys.excepthook` the user set does.
  asyncio's report is a log record: the block follows it only where the record went to `sys.stderr`
  (`explain.logs_to_stderr`), never after a report written to a file.
"""

import sys  # and nothing else (no `__future__` either): imported at the first `import threading` under the hook

# What the `.pth` line runs at every interpreter start, and nothing more: four small functions, three chained in
# front of hooks. Compiling them is most of the line's cost (a string literal costs little: main's chains, held as
# one, added some 10%), so everything else is behind an import that runs only when it is needed:
# `errorkb.hook.explain` once an error happened, `errorkb.hook.chains` once threading or asyncio is imported.
# `_errorkb_again`: a hook of errorkb's is chained already (a second `.pth`, `import errorkb.hook`), so no second
# finder waits.
EXCEPTHOOK = """
_errorkb_again = getattr(sys.excepthook, "errorkb_hook", 0) or getattr(sys.unraisablehook, "errorkb_hook", 0)
def _errorkb_explain(kind, value, traceback):
    if isinstance(value, Exception):
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
def _errorkb_after_import(name, path=None, target=None):
    if name in _errorkb_after_import.waiting:
        try:
            from errorkb.hook import chains
            return chains.find_spec(_errorkb_after_import, name, path, target)
        except BaseException:
            pass
_errorkb_excepthook.errorkb_hook = _errorkb_unraisablehook.errorkb_hook = True
if not getattr(sys.excepthook, "errorkb_hook", False):
    sys.excepthook = _errorkb_excepthook
if not getattr(sys.unraisablehook, "errorkb_hook", False):
    sys.unraisablehook = _errorkb_unraisablehook
_errorkb_after_import.find_spec, _errorkb_after_import.explain = _errorkb_after_import, _errorkb_explain
_errorkb_after_import.waiting = {"threading", "asyncio.base_events"}
if not _errorkb_again and "_errorkb_after_import" not in [getattr(one, "__name__", 0) for one in sys.meta_path]:
    sys.meta_path.insert(0, _errorkb_after_import)
    if "threading" in sys.modules or "asyncio.base_events" in sys.modules:
        try:
            from errorkb.hook import chains
            chains.loaded(_errorkb_after_import)
        except BaseException:
            pass
"""

# The `.pth` line: site.py runs a line that starts with `import`; the rest is `EXCEPTHOOK`, verbatim.
PTH_LINE = f"import sys; exec({EXCEPTHOOK!r}, {{'sys': sys}})\n"


def install() -> None:
    """Chain the hook in front of `sys.excepthook` (once, however often it is called: where both hooks are errorkb's
    already, as when `errorkb.hook.chains` is first imported under the `.pth`'s hook, there is nothing to do)."""
    if not (getattr(sys.excepthook, "errorkb_hook", False) and getattr(sys.unraisablehook, "errorkb_hook", False)):
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
