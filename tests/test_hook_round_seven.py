"""The hook under attack, round seven, in real interpreters with the hook on: hostile environments. The program's
own trace and profile functions, `sys.excepthook` and `sys.unraisablehook` called by hand with arguments Python
refuses, a CPU time limit near its end; and the shapes that found nothing (kept, so that they stay so).
"""

from __future__ import annotations

import ast

import pytest

from tests.hookrun import BLOCK, LIBRARY, RAISE, both, compare, pair
from tests.test_hook import HEAD_DIM, TITLE, envs, run, stub_library  # noqa: F401 (a fixture)

# A trace or profile function of the program's, still set when the program ends with the entry's error (a tracer,
# a profiler, coverage: they stop at exit, after `sys.excepthook`). It notes each Python function it is called for;
# an `atexit` callback prints them. main: the explainer's some 70,000 calls went through it (68,770 lines printed by
# a tracer that prints each; 1 to 3 s more), in the thread the hook runs in (`sys.settrace`, `sys.setprofile`) and in
# the explainer's own (`threading.settrace`, `threading.setprofile`: each `threading.Thread` runs them).
_TRACED = """\
import atexit, sys, threading
seen = set()
def noted(frame, event, arg):
    if event == 'call':
        seen.add(frame.f_code.co_name)
    return None
{setter}(noted)
atexit.register(lambda: print(sorted(seen)))
"""
SETTERS = ["sys.settrace", "sys.setprofile", "threading.settrace", "threading.setprofile"]
# Where the error is reported: the program's end; a thread it ends (`threading.excepthook`); an asyncio task never
# retrieved (the loop's handler, chained when `asyncio.base_events` is first imported: main's chaining, run by the
# import system outside the hook's entry, showed the tracer `done` and `on_asyncio`).
REPORTED = {
    "program-end": (RAISE, 1),
    "thread": ("thread = threading.Thread(target=early_initialization)\nthread.start()\nthread.join()\n", 0),
    "asyncio-task": ("import asyncio, gc\nasync def fails():\n    early_initialization()\nasync def main():\n"
                     "    task = asyncio.ensure_future(fails())\n    await asyncio.sleep(0.01)\n    del task\n"
                     "    gc.collect()\nasyncio.run(main())\n", 0),
}
ENTRIES = ("_errorkb", "_explain")  # what Python calls: the `.pth`'s functions and the chains' (`chains._explain`)


@pytest.mark.parametrize("reported", list(REPORTED))
@pytest.mark.parametrize("setter", SETTERS)
def test_the_programs_trace_and_profile_functions_never_see_the_explainers_work(envs, tmp_path,  # noqa: F811
                                                                                setter, reported):
    """Python's own printing is C code: a trace function sees none of it. The hook is Python code, so the program's
    tracer sees the functions Python calls (the hook's own entries), and nothing of what they do."""
    body, status = REPORTED[reported]
    code = stub_library(tmp_path) + LIBRARY + _TRACED.format(setter=setter) + body
    with_hook, without = pair(envs, code, tmp_path)
    assert with_hook.returncode == without.returncode == status, with_hook.stderr
    seen, seen_without = (ast.literal_eval(result.stdout) for result in (with_hook, without))
    assert [name for name in seen if name not in seen_without and not name.startswith(ENTRIES)] == [], seen
    assert TITLE in with_hook.stderr, with_hook.stderr


# `sys.excepthook` and `sys.unraisablehook` called by the program itself, with arguments Python's hooks refuse: the
# caller gets Python's own TypeError. main: errorkb's hook raised an error of its own (IndexError, ValueError,
# AttributeError "'NoneType' object has no attribute 'exc_type'", "_errorkb_hook() got an unexpected keyword
# argument"), naming itself as the failure; a keyword named like one of its bound defaults replaced it.
HAND_CALLS = {
    "excepthook-no-arguments": "sys.excepthook()",
    "excepthook-two": "sys.excepthook(ValueError, ValueError('x'))",
    "excepthook-four": "sys.excepthook(ValueError, ValueError('x'), None, None)",
    "excepthook-keyword": "sys.excepthook(ValueError, ValueError('x'), None, extra=1)",
    "excepthook-bound-name": "sys.excepthook(ValueError, ValueError('x'), None, _previous=print)",
    "unraisablehook-no-arguments": "sys.unraisablehook()",
    "unraisablehook-none": "sys.unraisablehook(None)",
    "unraisablehook-lookalike": ("sys.unraisablehook(type('Args', (), {'exc_type': ValueError, 'exc_value': "
                                 "ValueError('x'), 'exc_traceback': None, 'err_msg': None, 'object': None})())"),
    "unraisablehook-keyword": "sys.unraisablehook(args=None)",
}


@pytest.mark.parametrize("call", list(HAND_CALLS))
def test_a_hook_called_by_hand_with_arguments_python_refuses_raises_pythons_own_error(envs, tmp_path,  # noqa: F811
                                                                                        call):
    code = stub_library(tmp_path) + LIBRARY + (
        f"import sys\ntry:\n    {HAND_CALLS[call]}\nexcept BaseException as error:\n"
        "    print(type(error).__name__, error)\nelse:\n    print('returned')\n" + RAISE)
    with_hook, without = pair(envs, code, tmp_path)
    assert without.stdout.startswith("TypeError "), without.stdout
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1, with_hook.stderr


def test_a_failing_hook_called_by_hand_raises_to_its_caller_as_without_errorkb(envs, tmp_path):  # noqa: F811
    """A hook of the program's that raises, set before `import errorkb.hook` chained in front of it, and called by the
    program's own code: its error reaches the caller. main printed Python's report for a hook that failed at the
    program's end ("Error in sys.excepthook", "Original exception was") and returned: the caller's `except` never
    ran. Python calls `sys.excepthook` with no frame of the program's left (or `code`'s console, from Python code,
    where the error reaches the console as without errorkb)."""
    plain, _ = envs
    code = stub_library(tmp_path) + LIBRARY + (
        "import sys\ndef mine(kind, value, tb):\n    raise RuntimeError('my hook broke')\nsys.excepthook = mine\n"
        "import {module}\ntry:\n    sys.excepthook(ValueError, ValueError('x'), None)\nexcept RuntimeError as error:\n"
        "    print('caught', error)\n" + RAISE)
    with_hook = run(plain, code.format(module="errorkb.hook"), tmp_path)
    without = run(plain, code.format(module="errorkb"), tmp_path)
    assert without.stdout == "caught my hook broke\n" and "Error in sys.excepthook" in without.stderr
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1, with_hook.stderr


# A CPU time limit (RLIMIT_CPU, `ulimit -t`) that the program nearly used up before its error: at the soft limit the
# kernel sends SIGXCPU, whose default ends the process. main's explainer spent the rest: status -24 (SIGXCPU) where
# Python's own printing exits 1. The kernel's count runs ahead of `time.process_time()` on a busy machine (a plain
# interpreter was killed some 0.15 s before it): the program leaves itself 0.6 s, and its error's `__str__` spends
# CPU time only when errorkb's code reads it (what an explainer's work costs is the program's to decide, not this
# test's), not when Python's printer does.
_CPU_LIMIT = """\
import resource, sys, time
used = resource.getrusage(resource.RUSAGE_SELF)
used = used.ru_utime + used.ru_stime
limit = int(used) + {seconds}
resource.setrlimit(resource.RLIMIT_CPU, (limit, resource.RLIM_INFINITY))
while time.process_time() < limit - {left} and {left} < {seconds}:
    pass
class Costly(ValueError):
    def __str__(self):
        frame = sys._getframe()
        while frame is not None:
            if frame.f_globals.get('__name__', '').startswith('errorkb.'):
                started = time.process_time()
                while time.process_time() < started + 3:
                    pass
                break
            frame = frame.f_back
        return 'costly'
"""


def test_a_cpu_limit_near_its_end_is_not_spent_by_the_hook(envs, tmp_path):  # noqa: F811
    code = stub_library(tmp_path) + LIBRARY + _CPU_LIMIT.format(seconds=2, left=0.6) + "raise Costly()\n"
    with_hook, without = pair(envs, code, tmp_path)
    assert without.returncode == 1 and "ValueError" not in without.stderr and "Costly: costly" in without.stderr, \
        without
    assert compare(with_hook, without) == "", with_hook.stderr
    roomy = stub_library(tmp_path) + LIBRARY + _CPU_LIMIT.format(seconds=60, left=60) + RAISE  # room: the block
    added = compare(*pair(envs, roomy, tmp_path))
    assert added.startswith(BLOCK) and TITLE in added, added


# Environments that found nothing: Python's own output, status and stdout, then one block where the entry's error is
# the one reported (`True`), nothing otherwise. Each with the interpreter's flags and environment variables.
NOTHING_FOUND = {
    "memory-limited": ("import resource\nresource.setrlimit(resource.RLIMIT_AS, (400 << 20, resource.RLIM_INFINITY))\n"
                       + RAISE, (), {}, True),
    "no-file-descriptors-left": ("import resource\nfiles = []\ntry:\n    while True:\n"
                                 "        files.append(open('/dev/null'))\nexcept OSError:\n    pass\n" + RAISE,
                                 (), {}, False),
    "chdir-into-a-deleted-folder": ("import os, tempfile\nfolder = tempfile.mkdtemp()\nos.chdir(folder)\n"
                                    "os.rmdir(folder)\n" + RAISE, (), {}, True),
    "optimized-OO": (RAISE, ("-OO",), {}, True),
    "warnings-are-errors": (RAISE, (), {"PYTHONWARNINGS": "error", "PYTHONDONTWRITEBYTECODE": "1"}, True),
    "ascii-strict-non-ascii-message": ("raise ValueError('caf\\u00e9')\n", (), {"PYTHONIOENCODING": "ascii:strict"},
                                       False),
    "c-locale": (RAISE, (), {"LC_ALL": "C", "LANG": "C", "PYTHONCOERCECLOCALE": "0", "PYTHONUTF8": "0"}, True),
    "line-buffered-stderr": ("import sys\nsys.stderr = open(2, 'w', buffering=1, closefd=False)\n" + RAISE, (), {},
                             True),
    "excepthook-by-hand-none-traceback": ("import sys\ntry:\n    early_initialization()\nexcept Exception as error:\n"
                                          "    sys.excepthook(type(error), error, None)\nprint('after')\n", (), {},
                                          True),
    "excepthook-by-hand-not-an-exception": ("import sys\nsys.excepthook(ValueError, ValueError, None)\n"
                                            "sys.excepthook(ValueError, 'text', None)\nprint('after')\n", (), {},
                                            False),
}


@pytest.mark.parametrize("case", list(NOTHING_FOUND))
def test_environments_that_found_nothing_print_pythons_output_then_one_block_or_none(envs, tmp_path,  # noqa: F811
                                                                                     case):
    body, flags, variables, named = NOTHING_FOUND[case]
    code = stub_library(tmp_path) + LIBRARY + body
    (tmp_path / "script.py").write_text(code, encoding="utf-8")
    with_hook, without = both(envs, tmp_path, argv=[*flags, "script.py"], env=variables, errors="replace")
    added = compare(with_hook, without)
    block = "\nerrorkb: a documented error "  # its dash escaped where the stream is ASCII (`\\u2014`)
    assert (added.startswith(block) and added.count("errorkb:") == 1) if named else added == "", with_hook.stderr
