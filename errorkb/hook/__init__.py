"""The opt-in hook: when an uncaught exception is a documented error, say so after its traceback.

Three ways in, one behaviour (`errorkb.hook.explain.explain`):

- `errorkb hook install` writes `errorkb-hook.pth` into the environment's site-packages; its one
  line runs `EXCEPTHOOK` at every interpreter start. `errorkb hook uninstall` removes it.
- `import errorkb.hook` runs the same `EXCEPTHOOK` in this interpreter.
- `%load_ext errorkb.hook` in IPython, whose shell shows tracebacks itself (no `sys.excepthook`).

`EXCEPTHOOK` is the whole start-up cost: it defines a few small functions and chains them in front
of the hooks through which Python prints an error nobody caught, importing nothing (not even
`errorkb`: the `.pth` line must cost nothing when no exception happens). Each calls the previous
hook first, so the output and the exit status are Python's own (where that hook raises, Python's report of
its failure is printed as without errorkb: `chains.failed`), then imports the explainer lazily, from the
folder errorkb was installed in and never from the program's own (`errorkb.hook.guard`), and swallows
anything that goes wrong there: the hook never raises, and never changes the exception. It does nothing
at all for a `KeyboardInterrupt` (or any non-`Exception`, a thread's `SystemExit` too): running Python
code that calls `exec` (dataclasses, namedtuple, this very hook) would clear the interpreter's note that
the interrupt went unhandled, and the process would exit with status 1 instead of dying by SIGINT. An
error Python reports from inside the explainer's own thread is Python's to print alone
(`explain.describe_within`).

Where Python prints such an error, and so where the hook chains:

- `sys.excepthook`: the error that ends the program.
- `sys.unraisablehook`: an error Python can only report ("Exception ignored in ..."): in a `__del__`,
  an `atexit` callback, a thread started with `_thread` alone.
- `threading.excepthook`: an error that ends a thread, `BaseEventLoop.default_exception_handler`:
  what asyncio logs ("Task exception was never retrieved", "Exception in callback"), and
  `multiprocessing`'s `BaseProcess._bootstrap`, which prints the error that ends a `Process` child itself.
  All live in modules the user's code imports lazily, if at all; importing them at start-up would cost every
  interpreter milliseconds. So a finder at the front of `sys.meta_path` watches for those three names
  only (a set lookup per first import of a module, nothing more); at the first of them it imports
  `errorkb.hook.chains`, which lets the import system load the module as it would, chains on the hook
  once its code has run, and leaves `sys.meta_path` once all are chained. `threading.__excepthook__`
  stays Python's own, as its documentation says ("the original value"): code that calls it explicitly
  gets Python's printing alone. A loop whose exception handler the user set
  (`loop.set_exception_handler`) prints through theirs alone, as a `sys.excepthook` the user set does.
  asyncio's report is a log record: the block follows it only where the record went to `sys.stderr`
  (`explain.logs_to_stderr`), never after a report written to a file.
- at the program's exit (`atexit`, registered at start-up, so it runs after the program's own callbacks): the error
  that ended the program, where Python reported it through a `sys.excepthook` the program set after errorkb's
  (`rich.traceback.install()`, a logger), which prints alone; `sys.last_value` says which error
  (`chains.at_exit`; round nine, tests/test_hook_round_nine.py). Likewise the error that ended a thread, reported
  through a `threading.excepthook` the program set: named once that hook returned (`chains._after_thread_hooks`;
  round ten, tests/test_hook_round_ten.py). An audit hook would see the moment Python calls
  the hook, but every audited event of the process would call it for ever (`id()` 30 times slower:
  benchmarks/hook_exit_check.py).
"""

import os  # loaded at every start already (site.py imports it)
import sys

# What the `.pth` line runs at every interpreter start, and nothing more: three small functions, chained in front of
# hooks (`_errorkb_make` makes `_errorkb_hook` for `sys.excepthook` and for `sys.unraisablehook`, what it chains on
# bound in its closure: a keyword of a caller's cannot replace it). Compiling
# them is most of the line's cost (a string literal costs little: main's chains, held as one, added some 10%), so
# everything else is behind `_errorkb_call`, which runs only when it is needed:
# `errorkb.hook.explain` once an error happened, `errorkb.hook.chains` once threading or asyncio is imported (or a
# hook before errorkb's failed, or a console printed). `_errorkb_call` loads `errorkb.hook.guard` alone, from the
# folder errorkb was installed in (`_errorkb_guard`), never a file the program's folder holds under its name (it
# stays in `sys.modules`); `guard.call` puts the package (from the folder above) in `sys.modules` while the hook works
# and, where the program's own path gives another `errorkb` (its `errorkb.py`), takes it out again afterwards
# (`guard.package`; round ten: the line once took whatever `sys.modules["errorkb"]` was for the package, and left the
# package there). The hook's modules load through the guard, with `sys.path` as it was when the line ran (`_first`:
# before Python put the program's folder in front of it); the package loaded by the line is marked (`hook_by_pth`), so
# that `errorkb.hook` installs nothing then. An older release's line (`from errorkb.hook import guard`, `guard.load`)
# still works, with that old limit: `errorkb hook install` re-writes it. Builtins are bound when the line runs: a
# program may replace them. `_errorkb_again`: a hook of errorkb's is chained already (a second `.pth`, `import
# errorkb.hook`), so no second finder waits.
# Near the recursion limit (an error in a `__del__` deep in a recursion: `sys.unraisablehook` runs at that depth) the
# hook's own frame would take the room Python's printer needs there, and a call of the hook's that failed would make
# Python name the hook as the one that failed (round six, tests/test_hook_round_six.py). So the hook is one frame,
# and it raises the limit while it runs: by one, its own frame, while the hook before it prints (the room it has
# without errorkb: the same output at every depth), by 200 while errorkb prints that hook's failure; the explainer
# runs under the program's own limit (near it, no block), and the limit is put back before the hook returns. Where
# this frame is the deepest the limit allows, the limit could not be put back: it is left alone (`limit = 0`).
# Round seven (tests/test_hook_round_seven.py): a hook the program calls by hand with arguments Python's hooks refuse
# (none, two, a keyword, an object that is no `UnraisableHookArgs`) is the hook before errorkb's called with them:
# the caller gets Python's own TypeError, never one of errorkb's; and a hook before errorkb's that fails while the
# program's own code called `sys.excepthook` (a frame called it) raises to that caller, as without errorkb (Python's
# report of a failed hook is for the call Python makes at the program's end, no frame left). `_errorkb_call` runs
# with the thread's trace and profile functions off (the program's tracer, profiler, coverage: they saw each of the
# explainer's 70,000 calls) and puts them back. Round nine: `_errorkb_exit`, at the program's exit, costs a check of
# `sys.last_value` (unset unless Python reported an error that ended the program) and loads nothing unless a hook not
# errorkb's reported it; `_errorkb_first` (given by `install`, not the `.pth`) keeps `sys.path[:1]` from being taken
# for Python's own start where it is the program's folder. Session 61: the finder's call swallows errorkb's own
# `Exception`s alone: it asks the finders after it (the program's own) for the module, and a Ctrl-C then (a
# KeyboardInterrupt) is the program's import's, as without errorkb (main lost it, and the import went on).
EXCEPTHOOK = """
_errorkb_again = getattr(sys.excepthook, "errorkb_hook", 0) or getattr(sys.unraisablehook, "errorkb_hook", 0)
def _errorkb_call(module, name, *args, _first=globals().get("_errorkb_first", sys.path[:1]), _Base=BaseException):
    traced = sys.gettrace(), sys.getprofile()
    try:
        sys.settrace(None), sys.setprofile(None)
        guard = sys.modules.get("errorkb.hook.guard") or sys.modules["_frozen_importlib"]._load(
            sys.modules["_frozen_importlib_external"].PathFinder.find_spec("errorkb.hook.guard", [_errorkb_guard]))
        return guard.call(_first, module, name, *args)
    except _Base:
        pass
    finally:
        sys.settrace(traced[0]), sys.setprofile(traced[1])
def _errorkb_make(three, previous, _is=isinstance, _Exception=Exception, _type=type, _get=sys.getrecursionlimit,
                  _set=sys.setrecursionlimit):
    def _errorkb_hook(*args, **kwargs):
        if kwargs or len(args) != (1, 3)[three] or not three and _type(args[0]).__name__ != "UnraisableHookArgs":
            return previous(*args, **kwargs)
        limit = _get()
        try:
            _set(limit)
            _set(limit + 200)
        except:
            limit = 0
        try:
            kind, value, tb = args if three else (args[0].exc_type, args[0].exc_value, args[0].exc_traceback)
            ours = _is(value, _Exception)
            try:
                limit and _set(limit + 1)
                if not (ours and "code" in sys.modules
                        and _errorkb_call("chains", "console", sys._getframe().f_back, previous)):
                    previous(*args)
            except _Exception as error:
                limit and _set(limit + 200)
                if not (ours and not (three and sys._getframe().f_back)
                        and _errorkb_call("chains", "failed", three, error, previous, args)):
                    raise
            limit and _set(limit)
            if ours:
                _errorkb_call("explain", "explain", kind, value, tb)
        finally:
            limit and _set(limit)
    _errorkb_hook.errorkb_hook = True
    return _errorkb_hook
def _errorkb_after_import(name, path=None, target=None, _Exception=Exception):
    if name in _errorkb_after_import.waiting:
        return _errorkb_call("chains", "find_spec", _errorkb_after_import, name, path, target, _Base=_Exception)
if not getattr(sys.excepthook, "errorkb_hook", False):
    sys.excepthook = _errorkb_make(True, sys.excepthook)
if not getattr(sys.unraisablehook, "errorkb_hook", False):
    sys.unraisablehook = _errorkb_make(False, sys.unraisablehook)
_errorkb_after_import.find_spec = _errorkb_after_import
_errorkb_after_import.waiting = {"threading", "asyncio.base_events", "multiprocessing.process"}
def _errorkb_exit():
    try:
        sys.last_value
        try:
            sys.excepthook.errorkb_hook
        except AttributeError:
            _errorkb_call("chains", "at_exit")
    except:
        pass
if not _errorkb_again:
    __import__("atexit").register(_errorkb_exit)
if not _errorkb_again and "_errorkb_after_import" not in [getattr(one, "__name__", 0) for one in sys.meta_path]:
    sys.meta_path.insert(0, _errorkb_after_import)
    if _errorkb_after_import.waiting & sys.modules.keys():
        _errorkb_call("chains", "loaded", _errorkb_after_import)
"""

# The folder errorkb is installed in (the one holding the `errorkb` package): the `.pth` loads the guard from there.
HOME = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The `.pth` line: site.py runs a line that starts with `import`; the rest is `EXCEPTHOOK`, verbatim.
GUARD = os.path.join(HOME, "errorkb", "hook")  # the folder of `errorkb.hook.guard`, which the line loads alone
PTH_LINE = f"import sys; exec({EXCEPTHOOK!r}, {{'sys': sys, '_errorkb_guard': {GUARD!r}}})\n"


def install() -> None:
    """Chain the hook in front of `sys.excepthook` (once, however often it is called: where both hooks are errorkb's
    already, there is nothing to do). `sys.path[:1]` now is the program's folder, not where Python's own path begins
    (the `.pth`'s snapshot): the guard finds that itself (`guard._first`; round nine)."""
    if not (getattr(sys.excepthook, "errorkb_hook", False) and getattr(sys.unraisablehook, "errorkb_hook", False)):
        exec(EXCEPTHOOK, {"sys": sys, "_errorkb_guard": GUARD, "_errorkb_first": []})


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext errorkb.hook`: IPython shows the traceback as usual, then the explainer runs. A Ctrl-C meanwhile is
    the user's, not one of the explainer's failures: IPython gets it (round fourteen)."""

    def handler(shell: object, kind: type[BaseException], value: BaseException, traceback: object,
                tb_offset: int | None = None) -> None:
        shell.showtraceback((kind, value, traceback), tb_offset=tb_offset)  # type: ignore[attr-defined]
        try:
            from errorkb.hook.explain import explain

            explain(kind, value, traceback)
        except Exception:
            pass

    ipython.set_custom_exc((Exception,), handler)  # type: ignore[attr-defined]


def unload_ipython_extension(ipython: object) -> None:
    ipython.set_custom_exc((), None)  # type: ignore[attr-defined]


if not getattr(sys.modules.get("errorkb"), "hook_by_pth", False):  # `import errorkb.hook`, not the `.pth`'s own load
    install()
