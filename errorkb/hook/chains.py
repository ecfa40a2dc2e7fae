"""The hook's chains on `threading.excepthook` and asyncio's `BaseEventLoop.default_exception_handler`.

Both live in modules the user's code imports lazily, if at all, so the `.pth`'s code (`errorkb.hook.EXCEPTHOOK`)
puts a finder at the front of `sys.meta_path` that waits for those two names only, and imports this module the
first time one of them is imported (never at start-up: its code costs nothing until then). `find_spec` lets the
import system load the module as it would, chains once its code has run, and leaves `sys.meta_path` once both are
chained. The finder carries the state: `finder.waiting` (the names still to chain). Also here, for the `.pth`'s hooks:
what a console prints itself (`console`), and Python's report of a hook before errorkb's that failed (`failed`).

Nothing here imports `threading` or asyncio: this runs while one of them is being imported; nor `typing` or
`__future__` (annotations are strings): the import costs the first `import threading` as little as it can.
"""

import sys

from errorkb.hook import guard

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (milliseconds, at the first `import threading`)
if TYPE_CHECKING:
    from typing import Any

    Finder = Any  # the `.pth`'s finder: a function with the attribute `waiting`


_BUILTINS = (isinstance, Exception, BaseException)  # bound at the first `import threading`: a program may replace them


def _explain(kind: "Any", value: "Any", traceback: "Any", logger: "str | None" = None,
             _builtins: "Any" = _BUILTINS) -> None:
    """The block after Python's report (never for a `KeyboardInterrupt` or a `SystemExit`); with `logger`, only where
    that logger's report went to `sys.stderr`. Never raises. The thread's trace and profile functions (the program's:
    a tracer, a profiler, set by `sys.settrace` or `threading.settrace`) are off meanwhile: they would run, and
    print, on each of the explainer's calls (round seven), where Python's own printing calls none. Round fourteen: what
    is no `Exception` (a Ctrl-C, a signal handler's `sys.exit` while the block is made or written) is the program's,
    not the hook's failure: it propagates, as it would from the report before the block (asyncio's loop raises it)."""
    is_instance, exception, _ = _builtins
    trace, profile = sys.gettrace(), sys.getprofile()
    try:
        sys.settrace(None)
        sys.setprofile(None)
        if is_instance(value, exception):
            with guard.package():
                explain = guard.load("explain")
                if logger is None or explain.logs_to_stderr(logger):
                    explain.explain(kind, value, traceback)
    except exception:
        pass
    finally:
        sys.settrace(trace)
        sys.setprofile(profile)


def on_threading(finder: "Finder", module: "Any") -> None:
    """Chain in front of `threading.excepthook`; `threading.__excepthook__` stays Python's own ("the original
    value"), and a hook the user sets later replaces this one, as it would Python's."""
    previous = getattr(module, "excepthook", None)

    def _errorkb_threadhook(args: "Any", _previous: "Any" = previous) -> None:
        try:
            _previous(args)
        except _BUILTINS[1] as error:
            if not _thread_hook_failed(error, sys._getframe(1), args):
                raise
        _explain(args.exc_type, args.exc_value, args.exc_traceback)

    _errorkb_threadhook.errorkb_hook = True  # type: ignore[attr-defined]
    if callable(previous) and not getattr(previous, "errorkb_hook", False):
        module.excepthook = _errorkb_threadhook
    _after_thread_hooks(module)


def _after_thread_hooks(module: "Any") -> None:
    """Round ten: a thread's error reported by a `threading.excepthook` the program set after errorkb's (a logger's,
    `threading.__excepthook__` put back) is named once that hook returned, as `at_exit` names the program's. Each
    `Thread` asks `threading._make_invoke_excepthook` (by its module's name, at its creation) for the function its
    bootstrap calls with the error; the one made here calls it, then explains the error where no hook of errorkb's
    did (`explain.explained`: a hook of the program's that hands it to errorkb's, which named it). The function is
    private (round eleven): the wrapper passes whatever it is given through, to it and to what it makes, returns what
    they return, and adds nothing where it is absent, no function, or makes none; a program that replaces it leaves
    the public path, `threading.excepthook` (errorkb's, or theirs and the exit check's), to name the error once.

    Why not `threading.excepthook` alone (round twelve): it is a plain global of `threading`, which the invoker reads
    from the module's dict at each error (`hook = excepthook`); a hook the program sets after the `.pth` replaces
    errorkb's there, and nothing public runs once that hook returned: its thread's error would be printed alone. The
    invoker is the one code that runs after whatever hook is set. Rejected: a module class for `threading` whose
    `excepthook` property wraps what the program assigns (it changes `type(threading)` for every program, sets
    `threading.__dict__["excepthook"]` apart from `threading.excepthook`, and still rests on how the invoker reads
    the global). A `threading` without the name (tests/test_hook_round_twelve.py): errorkb's hook, or the program's
    that calls the one it replaced, names the error once; one that calls none of errorkb's prints alone."""
    make = getattr(module, "_make_invoke_excepthook", None)
    if not callable(make) or getattr(make, "errorkb_hook", False):
        return

    def _make_invoke_excepthook(*args: "Any", _make: "Any" = make, **kwargs: "Any") -> "Any":
        invoke = _make(*args, **kwargs)
        if not callable(invoke):
            return invoke

        def invoke_excepthook(*args: "Any", _invoke: "Any" = invoke, **kwargs: "Any") -> "Any":
            value = sys.exc_info()[1]
            done = _invoke(*args, **kwargs)
            try:
                if not _BUILTINS[0](value, _BUILTINS[1]) or getattr(module.excepthook, "errorkb_hook", False):
                    return done
                explain = sys.modules.get("errorkb.hook.explain")
                if explain is not None and explain.explained(value):
                    return done
            except _BUILTINS[2]:
                return done
            _explain(type(value), value, getattr(value, "__traceback__", None))
            return done

        return invoke_excepthook

    _make_invoke_excepthook.errorkb_hook = True  # type: ignore[attr-defined]
    module._make_invoke_excepthook = _make_invoke_excepthook


def on_asyncio(finder: "Finder", module: "Any") -> None:
    """Chain on the loop's default exception handler (a task's exception never retrieved, an exception in a
    callback): after asyncio's report, the block, only where the report went to `sys.stderr`. A handler the
    user set on the loop (`loop.set_exception_handler`) prints alone."""
    loop = getattr(module, "BaseEventLoop", None)
    previous = getattr(loop, "default_exception_handler", None)

    def default_exception_handler(self: "Any", context: "Any", _previous: "Any" = previous) -> None:
        _previous(self, context)
        error = context.get("exception") if isinstance(context, dict) else None
        if isinstance(error, Exception):
            _explain(type(error), error, None, "asyncio")

    default_exception_handler.errorkb_hook = True  # type: ignore[attr-defined]
    default_exception_handler.__doc__ = getattr(previous, "__doc__", None)
    if callable(previous) and not getattr(previous, "errorkb_hook", False):
        loop.default_exception_handler = default_exception_handler  # type: ignore[union-attr]


def console(frame: "Any", previous: "Any") -> bool:
    """`frame`: the one that called the hook (None where Python itself did, with no frame left: at a program's end).
    Where `code.InteractiveInterpreter` (`code.interact`, Python 3.11 and 3.12) calls the hook in place of
    Python's own printing, print what it prints itself while `sys.excepthook` is Python's own: the lines it already
    formatted (its own `runcode` frame left out), through its own `write`. True when done; else the caller calls
    `previous` (another hook the program set prints as it would)."""
    console = getattr(sys.modules.get("code"), "InteractiveInterpreter", None)
    shown = getattr(getattr(console, "showtraceback", None), "__code__", None)
    if shown is None or frame is None or frame.f_code is not shown or previous is not sys.__excepthook__:
        return False
    lines, shell = frame.f_locals.get("lines"), frame.f_locals.get("self")
    if not isinstance(lines, list) or not isinstance(shell, console):  # type: ignore[arg-type]
        return False
    shell.write("".join(lines))
    return True


_FAILED_UNRAISABLE = "Exception ignored in sys.unraisablehook"


def failed(hook: "bool | str", error: BaseException, previous: "Any", args: "Any") -> bool:
    """A hook before errorkb's (`previous`) raised `error` while reporting `args`: print what Python prints then, as
    without errorkb, whose frame (the first of `error`'s traceback) is left out. `hook`: True for `sys.excepthook`,
    False for `sys.unraisablehook` (the `.pth`'s one function is both; an earlier release's line names them).
    `sys.excepthook`: "Error in sys.excepthook", the hook's error, "Original exception was" and the error
    (pythonrun.c); `sys.unraisablehook`: the hook's error through the default hook, as ignored in it (errors.c).
    True when printed."""
    traceback = error.__traceback__.tb_next if error.__traceback__ is not None else None
    error.with_traceback(traceback)  # Python's printer reads the exception's own traceback, not the one it is given
    if hook is True or hook == "sys.excepthook":
        sys.stderr.write("Error in sys.excepthook:\n")
        sys.__excepthook__(type(error), error, traceback)
        sys.stderr.write("\nOriginal exception was:\n")
        sys.__excepthook__(*args)
        return True
    if hook is False or hook == "sys.unraisablehook":
        kind = type(args[0])
        sys.__unraisablehook__(kind((type(error), error, traceback, _FAILED_UNRAISABLE, previous)))
        return True
    return False


def _thread_hook_failed(error: BaseException, caller: "Any", args: "Any") -> bool:
    """`threading.excepthook` before errorkb's raised: what `threading`'s `invoke_excepthook` prints then ("Exception
    in threading.excepthook", the error through `sys.excepthook`), its traceback from `invoke_excepthook`'s frame
    (`caller`) to the hook's, errorkb's frame left out. True when printed."""
    try:
        if error.__traceback__ is None or caller.f_code.co_name != "invoke_excepthook":
            return False
        traceback = type(error.__traceback__)(error.__traceback__.tb_next, caller, caller.f_lasti, caller.f_lineno)
        error.__suppress_context__ = True
        stderr = sys.stderr if sys.stderr is not None else getattr(args.thread, "_stderr", None)
        print("Exception in threading.excepthook:", file=stderr, flush=True)
    except BaseException:
        return False
    printer = sys.excepthook if sys.excepthook is not None else sys.__excepthook__
    printer(type(error), error.with_traceback(traceback), traceback)
    return True


def on_multiprocessing(finder: "Finder", module: "Any") -> None:
    """Chain on `BaseProcess._bootstrap`, what runs a `multiprocessing.Process` in the child: an error that ends its
    target is printed there by `traceback.print_exc()` in `_bootstrap`'s own `except` clause, through no hook. While
    `_bootstrap` runs, `traceback.print_exc` is one that notes the exception it prints when `_bootstrap` itself calls
    it (its caller's code, by identity), and prints it as ever; once `_bootstrap` returned (its streams flushed), the
    block follows what it printed. Wrapping the target instead would put a frame of errorkb's in the printed
    traceback. A `SystemExit` is noted by no one (`_bootstrap` prints no traceback for it). A Ctrl-C while errorkb
    prepares (its `import traceback`) propagates: main swallowed it and ran the target all the same."""
    process = getattr(module, "BaseProcess", None)
    previous = getattr(process, "_bootstrap", None)
    ran = getattr(previous, "__code__", None)

    def _bootstrap(self: "Any", *args: "Any", _previous: "Any" = previous, **kwargs: "Any") -> "Any":
        try:
            with guard.inside():
                import traceback
            print_exc = traceback.print_exc
        except _BUILTINS[1]:  # errorkb's own failure; a Ctrl-C here is the child's (round sixteen): it ends it
            return _previous(self, *args, **kwargs)
        printed: list[BaseException] = []

        def noted(*args: "Any", **kwargs: "Any") -> "Any":
            if sys._getframe(1).f_code is ran:
                printed.append(sys.exc_info()[1])  # type: ignore[arg-type]
            return print_exc(*args, **kwargs)

        noted.__wrapped__ = print_exc  # type: ignore[attr-defined]
        traceback.print_exc = noted
        try:
            code = _previous(self, *args, **kwargs)
        finally:
            if traceback.print_exc is noted:
                traceback.print_exc = print_exc
        if printed:
            _explain(type(printed[-1]), printed[-1], printed[-1].__traceback__)
        return code

    _bootstrap.errorkb_hook = True  # type: ignore[attr-defined]
    if ran is not None and not getattr(previous, "errorkb_hook", False):
        process._bootstrap = _bootstrap  # type: ignore[union-attr]


def at_exit() -> None:
    """The program ended with an error that Python reported through a `sys.excepthook` not errorkb's (one the program
    set after the `.pth` ran: `rich.traceback.install()`, a logger), called at the program's exit (the `.pth`'s
    `atexit` callback, registered at start-up: it runs after the program's own). The block follows what that hook and
    the program's `atexit` callbacks printed, once: never where errorkb's own hook explained it already (a hook that
    calls the one it replaced), after Python's console (`_console`: the last error of a console is no error the
    program ended with), nor for an error that did not end the program's first frame (`_ended`)."""
    value, traceback = getattr(sys, "last_value", None), getattr(sys, "last_traceback", None)
    if _console() or not _BUILTINS[0](value, _BUILTINS[1]) or not _ended(traceback):
        return
    explain = sys.modules.get("errorkb.hook.explain")
    if explain is not None and explain.explained(value):
        return
    _explain(type(value), value, traceback)


def _console() -> bool:
    """Whether Python's console ran in this process, whose last error is no error a program ended with: `-i`, or
    PYTHONINSPECT (which Python reads again once the script ended: the program may set it), or the console Python
    runs with no program given and a terminal on stdin (`sys.argv[0]` is empty, and it sets `sys.ps1`). Round
    twelve: `sys.ps1` alone is no console's: a program may set it (code that asks it whether it runs interactively),
    and its end reported by a hook of its own got no block."""
    flags = sys.flags
    if flags.interactive or flags.inspect:
        return True
    os = sys.modules.get("os")
    if os is None:
        return hasattr(sys, "ps1")
    try:
        if not flags.ignore_environment and os.environ.get("PYTHONINSPECT"):
            return True
        return hasattr(sys, "ps1") and sys.argv[:1] == [""] and os.isatty(0)
    except _BUILTINS[2]:
        return hasattr(sys, "ps1")


def _ended(traceback: "Any") -> bool:
    """Whether the error of `traceback` ended the program: Python's report at the end comes once the error unwound
    every frame, so the traceback's first frame is the program's first (no frame called it), and that frame ran
    nothing after the error passed it (its last instruction is the one the traceback notes, or the `raise` that
    raised it again). A console's or a shell's error kept in `sys.last_value` was not in the first frame; an error
    the program caught, noted there itself and survived, was followed by more of that frame's code."""
    if traceback is None or traceback.tb_frame.f_back is not None:
        return False
    frame = traceback.tb_frame
    if frame.f_lasti == traceback.tb_lasti:
        return True
    with guard.inside():
        import opcode
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and opcode.opname[code[frame.f_lasti]] in ("RAISE_VARARGS", "RERAISE")


CHAINS = {"threading": on_threading, "asyncio.base_events": on_asyncio, "multiprocessing.process": on_multiprocessing}


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
        trace, profile = sys.gettrace(), sys.getprofile()  # the program's tracer sees the import, not the chaining
        try:
            sys.settrace(None)
            sys.setprofile(None)
            done(finder, name, module)
        finally:
            sys.settrace(trace)
            sys.setprofile(profile)

    exec_module.__code__ = exec_module.__code__.replace(co_filename=_IMPORT_MACHINERY)
    loader.exec_module = exec_module  # type: ignore[method-assign,union-attr]
    return spec


# Round eleven: the module's own import can fail (`threading` while `sys.excepthook` is None, a Ctrl-C in its code),
# and an error leaving a Python function carries its frame: Python's traceback showed the wrapper's, "chains.py, in
# exec_module", between the import system's. Python leaves out a run of the import system's frames (by their file
# name) that ends in its loader's `_call_with_frames_removed`; under that name, the wrapper is one of that run, and
# the traceback is Python's own.
_IMPORT_MACHINERY = "<frozen importlib._bootstrap_external>"


def loaded(finder: "Finder") -> None:
    """Chain on those of the two modules that were imported before the finder was in place."""
    for name in [name for name in finder.waiting if name in sys.modules]:
        done(finder, name, sys.modules[name])


def done(finder: "Finder", name: str, module: "Any") -> None:
    """Chain on `module`, once its code ran; errorkb's own failures are swallowed (nothing chained). Round sixteen: a
    Ctrl-C that lands here (or an exception a signal handler of the program's raises) is the program's import's, as
    where it lands in the module's own code: it propagates (main swallowed any `BaseException`, and the import went
    on), the import system drops the module, and the name is waited for again, for the next import to chain."""
    finder.waiting.discard(name)
    try:
        CHAINS[name](finder, module)
    except _BUILTINS[1]:
        pass
    except BaseException:
        finder.waiting.add(name)
        raise
    if not finder.waiting and finder in sys.meta_path:
        sys.meta_path.remove(finder)
