"""The hook under attack, round eleven (issue 19, "where the user is"), in real interpreters with the hook on.

`sys.excepthook = None`: Python prints "Error in sys.excepthook" (calling None fails), then "Original exception was"
and the error; main printed no block. The cause: the exit check loads the explainer, which imports `threading`, and
`threading`'s own import fails while `sys.excepthook` is None (its main thread asks `_make_invoke_excepthook`, which
raises "sys.excepthook is None"); the hook swallowed that. Decided: Python reported the error, so the block follows,
as after `sys.excepthook = 3` (round ten); the program's own later `import threading` still fails as Python's does.

A module the hook chains on whose own import fails (that `import threading`) showed a frame of errorkb's, its
loader's wrapper, in Python's traceback: now the wrapper is one of the import system's frames Python leaves out.

The thread rule of round ten wraps `threading._make_invoke_excepthook`, a private function: where another Python
gives it arguments, or a program replaces it, the public `threading.excepthook` path must name the error once.

Then the hostile programs of round eleven: an error where Python reported it gets one block naming the entry, in the
process that reported it; none where Python reported nothing; never a traceback of the hook's own.
"""

from __future__ import annotations

import types

import pytest

from tests.hookrun import RAISE, added, blocks, both, compare, one_block
from tests.test_hook import TITLE, envs  # noqa: F401 (a fixture)


def test_an_excepthook_set_to_none_gets_pythons_report_then_the_block(envs, tmp_path):  # noqa: F811
    """main: Python's report alone (the explainer's import of `threading` failed inside the hook)."""
    text = added(envs, tmp_path, "import sys\nsys.excepthook = None\n" + RAISE)
    assert one_block(text) and TITLE in text, text


# A module the hook chains on (`threading`, `asyncio.base_events`, `multiprocessing.process`) whose own import fails:
# main's traceback showed the chains' wrapper of its loader ("chains.py, in exec_module") among the import system's.
FAILED_IMPORTS = {
    "threading-excepthook-none": "import sys\nsys.excepthook = None\nimport threading\n",
    "threading-thread-gone": "import sys\nsys.modules['_thread'] = None\nimport threading\n",
    "multiprocessing-weakrefset-gone": "import sys\nsys.modules['_weakrefset'] = None\nimport multiprocessing\n",
}


@pytest.mark.parametrize("case", list(FAILED_IMPORTS))
def test_a_failing_import_of_a_module_the_hook_chains_on_shows_no_frame_of_errorkbs(envs, tmp_path,  # noqa: F811
                                                                                    case):
    with_hook, without = both(envs, tmp_path, FAILED_IMPORTS[case])
    assert without.returncode == 1 and "Error" in without.stderr, without.stderr
    assert compare(with_hook, without) == "", with_hook.stderr


def test_a_del_error_while_the_excepthook_is_none_leaves_the_programs_own_import_of_threading_failing(envs,  # noqa: F811
                                                                                                     tmp_path):
    """The block needs `threading` loaded where the program's `import threading` would fail: the program must still
    see Python's RuntimeError afterwards, not a module the hook loaded for itself."""
    code = ("import sys\nsys.excepthook = None\nclass Holder:\n    def __del__(self):\n        early_initialization()\n"
            "Holder()\ntry:\n    import threading\nexcept RuntimeError as error:\n    print('refused:', error)\n")
    text = added(envs, tmp_path, code)
    assert one_block(text) and TITLE in text, text


def test_the_thread_rule_passes_a_changed_make_invoke_excepthook_through(monkeypatch):
    """`_after_thread_hooks` wraps `threading._make_invoke_excepthook`, which is private: another Python may give it
    arguments, or its invoker other ones. main's wrapper took none and called `invoke(thread)`: `Thread()` itself
    failed with errorkb's TypeError. Now each call passes through as given, and what is no function is returned as
    made."""
    from errorkb.hook import chains

    made: list[tuple[object, ...]] = []

    def make(*args: object, **kwargs: object) -> object:
        return lambda *called, **named: made.append((args, kwargs, called, named))

    module = types.SimpleNamespace(_make_invoke_excepthook=make, excepthook=lambda args: None)
    chains._after_thread_hooks(module)
    assert module._make_invoke_excepthook is not make
    module._make_invoke_excepthook(1, two=2)("thread", 3, four=4)
    assert made == [((1,), {"two": 2}, ("thread", 3), {"four": 4})]
    module = types.SimpleNamespace(_make_invoke_excepthook=lambda: None, excepthook=lambda args: None)
    chains._after_thread_hooks(module)
    assert module._make_invoke_excepthook() is None


@pytest.mark.parametrize("state", ["absent", "not-callable"])
def test_the_thread_rule_leaves_a_threading_without_make_invoke_excepthook_alone(state):
    from errorkb.hook import chains

    module = types.SimpleNamespace(excepthook=lambda args: None)
    if state == "not-callable":
        module._make_invoke_excepthook = 3  # type: ignore[attr-defined]
    chains.on_threading(None, module)
    assert getattr(module, "_make_invoke_excepthook", None) == (None if state == "absent" else 3)
    assert getattr(module.excepthook, "errorkb_hook", False)


_THREAD = ("import threading\n{setup}thread = threading.Thread(target=early_initialization)\nthread.start()\n"
           "thread.join()\nprint('ran')\n")
# A program (a library it loads) that replaces `threading._make_invoke_excepthook`, the thread rule's wrapper with it:
# the public `threading.excepthook` (errorkb's, or one of the program's) names the error once, never twice.
MAKE_REPLACED = {
    "wrapping-ours": "previous = threading._make_invoke_excepthook\n"
                     "threading._make_invoke_excepthook = lambda: previous()\n",
    "own-invoker": "import sys\ndef make():\n    def invoke(thread):\n"
                   "        threading.excepthook(threading.ExceptHookArgs([*sys.exc_info(), thread]))\n"
                   "    return invoke\nthreading._make_invoke_excepthook = make\n",
    "wrapping-ours-logger-hook": "import sys\nprevious = threading._make_invoke_excepthook\n"
                                 "threading._make_invoke_excepthook = lambda: previous()\n"
                                 "threading.excepthook = lambda args: print('mine', file=sys.stderr)\n",
}


@pytest.mark.parametrize("case", list(MAKE_REPLACED))
def test_a_replaced_make_invoke_excepthook_leaves_one_block_for_a_threads_error(envs, tmp_path, case):  # noqa: F811
    text = added(envs, tmp_path, _THREAD.format(setup=MAKE_REPLACED[case]))
    assert one_block(text) and TITLE in text, text


# Round eleven's hostile programs: (code, blocks): how many blocks follow Python's unchanged output.
_MAIN = "if __name__ == '__main__':\n"
HOSTILE = {
    # an `atexit` callback's error: Python reports it ("Exception ignored in atexit callback")
    "atexit": ("import atexit\natexit.register(early_initialization)\nprint('ran')\n", 1),
    "atexit-then-exit-error": ("import atexit\natexit.register(early_initialization)\n" + RAISE, 2),
    # `weakref.finalize` at exit: its atexit function reports the error through `sys.excepthook` itself
    "weakref-finalize-at-exit": ("import weakref\nclass Held:\n    pass\nheld = Held()\n"
                                 "weakref.finalize(held, early_initialization)\nprint('ran')\n", 1),
    "weakref-finalize-collected": ("import weakref, gc\nclass Held:\n    pass\nheld = Held()\n"
                                   "weakref.finalize(held, early_initialization)\ndel held\ngc.collect()\n"
                                   "print('ran')\n", 1),
    # a `multiprocessing` child's error: the child prints it and its block; the parent goes on
    "process-fork": ("import multiprocessing\n" + _MAIN + "    child = multiprocessing.get_context('fork')"
                     ".Process(target=early_initialization)\n    child.start()\n    child.join()\n"
                     "    print(child.exitcode)\n", 1),
    "process-spawn": ("import multiprocessing\n" + _MAIN + "    child = multiprocessing.get_context('spawn')"
                      ".Process(target=early_initialization)\n    child.start()\n    child.join()\n"
                      "    print(child.exitcode)\n", 1),
    # a worker's error re-raised by `result()`: the parent names it once (the worker printed nothing)
    "process-pool-fork": ("import concurrent.futures as futures, multiprocessing\n" + _MAIN +
                          "    with futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context('fork'))"
                          " as pool:\n        pool.submit(early_initialization).result()\n", 1),
    "process-pool-as-completed": ("import concurrent.futures as futures\n" + _MAIN +
                                  "    with futures.ProcessPoolExecutor(2) as pool:\n"
                                  "        for done in futures.as_completed([pool.submit(early_initialization)]):\n"
                                  "            done.result()\n", 1),
    "thread-pool-map": ("import concurrent.futures as futures\nwith futures.ThreadPoolExecutor(2) as pool:\n"
                        "    list(pool.map(lambda _: early_initialization(), range(3)))\n", 1),
    # a worker's error caught by the program: Python reported nothing
    "thread-pool-caught": ("import concurrent.futures as futures\nwith futures.ThreadPoolExecutor(1) as pool:\n"
                           "    try:\n        pool.submit(early_initialization).result()\n    except ValueError:\n"
                           "        print('caught')\n", 0),
    # code run by `runpy`: its error ends the program as its own
    "runpy-run-path": ("import builtins, runpy\nbuiltins.early_initialization = early_initialization\n"
                       "with open('other.py', 'w') as file:\n    file.write('early_initialization()\\n')\n"
                       "runpy.run_path('other.py', run_name='__main__')\n", 1),
    "runpy-run-module": ("import runpy, os, sys\nwith open('other_module.py', 'w') as file:\n"
                         "    file.write('import __main__\\n__main__.early_initialization()\\n')\n"
                         "sys.path.insert(0, os.getcwd())\nrunpy.run_module('other_module', run_name='other')\n", 1),
    # streams closed or replaced by objects that are no text stream: where Python could not print, no block either
    "stderr-closed": ("import sys\nsys.stderr.close()\n" + RAISE, 0),
    "stderr-bytes-io": ("import io, sys\nsys.stderr = io.BytesIO()\n" + RAISE, 0),
    "stderr-object": ("import sys\nsys.stderr = object()\n" + RAISE, 0),
    "stdout-bytes-io": ("import io, sys\nsys.stdout = io.BytesIO()\n" + RAISE, 1),
    "stdout-none": ("import sys\nsys.stdout = None\n" + RAISE, 1),
    # a fork whose both sides end by the error: each process's report, each with its own block (the child's first)
    "fork-both-fail": ("import os, sys\npid = os.fork()\nif pid:\n    os.waitpid(pid, 0)\n" + RAISE, 2),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_round_eleven_hostile_programs_print_pythons_output_then_a_block_where_python_reported(envs, tmp_path,  # noqa: F811
                                                                                              case):
    code, expected = HOSTILE[case]
    with_hook, without = both(envs, tmp_path, code)
    found = blocks(with_hook, without)
    assert len(found) == expected and all(TITLE in block for block in found), with_hook.stderr
    assert with_hook.stderr.count("errorkb:") == expected and "errorkb/hook" not in with_hook.stderr, with_hook.stderr


def test_python_dash_m_names_the_error_of_the_module_it_ran(envs, tmp_path):  # noqa: F811
    """`python -m module`: runpy runs the module as `__main__`; its error ends the program."""
    added(envs, tmp_path, RAISE)  # writes script.py: the module
    text = added(envs, tmp_path, None, argv=("-m", "script"))
    assert one_block(text) and TITLE in text, text


# The explainer reads the exception again in its own thread; a `__str__` that reads as Python's in the main thread and
# sends SIGINT (Ctrl-C) from any other: the interrupt reaches the hook's frame while it waits for the lookup.
# (SIGINT as at a terminal, whatever the suite inherited: `hookrun.both`.)
_INTERRUPTED = """\
import os, signal, threading
class Interrupting(ValueError):
    def __str__(self):
        if threading.get_ident() != MAIN:
            os.kill(os.getpid(), signal.SIGINT)
        return 'loading failed'
MAIN = threading.get_ident()
try:
    early_initialization()
except ValueError as error:
    raise Interrupting() from error
"""


@pytest.mark.parametrize("interrupted", [True, False], ids=["ctrl-c", "no-ctrl-c"])
def test_a_keyboard_interrupt_during_the_hooks_lookup_ends_it_quietly(envs, tmp_path, interrupted):  # noqa: F811
    """Ctrl-C while the hook looks the error up: the user asked to stop; no block, no traceback of the hook's own,
    Python's output and status unchanged. Without the interrupt, the same program's error is named."""
    code = _INTERRUPTED if interrupted else _INTERRUPTED.replace("os.kill(os.getpid(), signal.SIGINT)", "pass")
    with_hook, without = both(envs, tmp_path, code)
    assert "Interrupting: loading failed" in without.stderr, without.stderr
    text = compare(with_hook, without)
    if not interrupted:
        assert one_block(text) and TITLE in text, text
        return
    assert "Traceback" not in text and "KeyboardInterrupt" not in text and "errorkb:" not in text, text
