"""The opt-in hook: when an uncaught exception is a documented error, say so after its traceback.

Three ways in, one behaviour (`errorkb.hook.explain.explain`):

- `errorkb hook install` writes `errorkb-hook.pth` into the environment's site-packages; its one
  line runs `EXCEPTHOOK` at every interpreter start. `errorkb hook uninstall` removes it.
- `import errorkb.hook` runs the same `EXCEPTHOOK` in this interpreter.
- `%load_ext errorkb.hook` in IPython, whose shell shows tracebacks itself (no `sys.excepthook`).

`EXCEPTHOOK` is the whole start-up cost: it defines a few small functions and chains them in front
of the previous `sys.excepthook` and the previous hook for threads, importing nothing (not even
`errorkb`: the `.pth` line must cost nothing when no exception happens). Each calls the previous
hook first, so the traceback and the exit status are Python's own, then imports the explainer
lazily, and swallows anything that goes wrong there: the hook never raises, and never changes the
exception. It does nothing at all for a `KeyboardInterrupt` (or any non-`Exception`, a thread's
`SystemExit` too): running Python code that calls `exec` (dataclasses, namedtuple, this very hook)
would clear the interpreter's note that the interrupt went unhandled, and the process would exit
with status 1 instead of dying by SIGINT.

An exception that ends a thread goes to `threading.excepthook`, never to `sys.excepthook`. The
`threading` module is imported lazily by the user's code, and takes its default hook from the
built-in `_thread._excepthook` when it is imported (`from _thread import _excepthook as
excepthook`); `_thread` is loaded before any `.pth` runs. So the hook chains in front of
`threading.excepthook` where `threading` is already imported, else in front of
`_thread._excepthook`, which `threading` then picks up (as its `excepthook` and its
`__excepthook__`, the value to restore): a `sys.modules` lookup, no import.
"""

from __future__ import annotations

import sys

EXCEPTHOOK = """
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
_errorkb_excepthook.errorkb_hook = True
if not getattr(sys.excepthook, "errorkb_hook", False):
    sys.excepthook = _errorkb_excepthook
_errorkb_owner = sys.modules.get("threading") or sys.modules.get("_thread")
_errorkb_name = "excepthook" if _errorkb_owner is sys.modules.get("threading") else "_excepthook"
_errorkb_previous = getattr(_errorkb_owner, _errorkb_name, None)
def _errorkb_threadhook(args, _previous=_errorkb_previous):
    _previous(args)
    _errorkb_explain(args.exc_type, args.exc_value, args.exc_traceback)
_errorkb_threadhook.errorkb_hook = True
if callable(_errorkb_previous) and not getattr(_errorkb_previous, "errorkb_hook", False):
    setattr(_errorkb_owner, _errorkb_name, _errorkb_threadhook)
"""

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
