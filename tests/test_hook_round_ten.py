"""The hook under attack, round ten, in real interpreters with the hook on: a `threading.excepthook` the program set
after the `.pth` ran (a thread's error went unnamed), a launcher that relays its child's error from an error file
(torchrun's `@record`: a second block, in the parent), and the shapes that found nothing (kept, so that they stay
so): process pools and `concurrent.futures`, `subprocess` children, a traceback printed by hand before `sys.exit`,
hostile `__str__`, closed or replaced streams, a `sys.excepthook` that is no function, `PYTHONDONTWRITEBYTECODE`, a
read-only site-packages, an index deleted after install.

Decided (round ten): an error that ended a thread, reported by a `threading.excepthook` the program set, is named
once after that hook returned (`chains.on_threading` wraps `threading._make_invoke_excepthook`, which each thread's
bootstrap calls), as round nine names the error that ended the program after the program's own `sys.excepthook`. A
traceback the program printed itself (`traceback.print_exc()`, then `sys.exit(1)` or `os._exit(1)`) gets no block:
no hook of Python's reported it, and errorkb cannot tell a printed-and-survived error from a fatal one without
patching the standard library's printing in every process.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.hookrun import BLOCK, BLOCK_RE, LIBRARY, RAISE, both, compare, pair, unaddressed
from tests.test_hook import TITLE, envs, run, stub_library  # noqa: F401 (a fixture)

_THREAD = "thread = threading.Thread(target=early_initialization)\nthread.start()\nthread.join()\nprint('ran')\n"
# Thread hooks a program sets after the `.pth` ran. main: theirs printed alone, and no block came at all.
THREAD_HOOKS = {
    "logger": "import sys, threading\nthreading.excepthook = lambda args: print('mine:', args.exc_type.__name__, "
              "file=sys.stderr)\n",
    "python-s-own-restored": "import threading\nthreading.excepthook = threading.__excepthook__\n",
    "calls-python-s-original": "import sys, threading\ndef mine(args):\n    print('mine', file=sys.stderr)\n"
                               "    threading.__excepthook__(args)\nthreading.excepthook = mine\n",
}


@pytest.mark.parametrize("hook", list(THREAD_HOOKS))
def test_a_threads_error_reported_by_a_thread_hook_the_program_set_is_named_once_after_it(envs, tmp_path,  # noqa: F811
                                                                                          hook):
    code = stub_library(tmp_path) + LIBRARY + THREAD_HOOKS[hook] + _THREAD
    with_hook, without = pair(envs, code, tmp_path)
    assert without.returncode == 0 and "errorkb" not in without.stderr, without.stderr
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1 and TITLE in added, with_hook.stderr


# Where no block may follow a thread hook the program set: an error no entry documents; a thread's `SystemExit`;
# a hook that hands the error to errorkb's (the one it replaced), which named it already.
THREAD_NOT_NAMED = {
    "unrelated": ("import sys, threading\nthreading.excepthook = lambda args: print('mine', file=sys.stderr)\n",
                  "thread = threading.Thread(target=lambda: int('x'))\nthread.start()\nthread.join()\n"),
    "system-exit": ("import sys, threading\nthreading.excepthook = lambda args: print('mine', file=sys.stderr)\n",
                    "thread = threading.Thread(target=lambda: sys.exit(3))\nthread.start()\nthread.join()\n"),
}


@pytest.mark.parametrize("case", list(THREAD_NOT_NAMED))
def test_no_block_after_a_thread_hook_the_program_set_for_an_error_no_entry_documents(envs, tmp_path,  # noqa: F811
                                                                                      case):
    hook, body = THREAD_NOT_NAMED[case]
    code = stub_library(tmp_path) + LIBRARY + hook + body
    with_hook, without = pair(envs, code, tmp_path)
    assert compare(with_hook, without) == "", with_hook.stderr


# torchrun's shape (torch.distributed.elastic: `@record` in the child writes `traceback.format_exc()` to an error
# file and raises again; the parent reads the file and raises `ChildFailedError`, its message the child's traceback
# indented by two spaces, as `ChildFailedError._format_failure` does). The child's stderr is the terminal's, as
# torchrun leaves it: the child's hook named the entry there, after its traceback.
_TORCHRUN = """\
import json, os, subprocess, sys, tempfile, traceback
if len(sys.argv) > 2:
    try:
        early_initialization()
    except Exception:
        with open(sys.argv[2], 'w') as file:
            json.dump({'message': {'message': 'ValueError: ...', 'extraInfo': {'py_callstack': traceback.format_exc(),
                                                                          'timestamp': '0'}}}, file)
        raise
    sys.exit(0)
class ChildFailedError(Exception):
    pass
error_file = os.path.join(tempfile.mkdtemp(), 'error.json')
child = subprocess.run([sys.executable, __file__, 'child', error_file])
with open(error_file) as file:
    message = json.load(file)['message']['extraInfo']['py_callstack'].replace('\\n', '\\n  ')
raise ChildFailedError('\\n' + '=' * 60 + '\\nscript.py FAILED\\n' + '-' * 60 + '\\nRoot Cause (first observed failure):'
                       '\\n[0]:\\n  exitcode  : 1 (pid: 1)\\n  error_file: ' + error_file + '\\n  traceback : ' + message
                       + '\\n' + '=' * 60)
"""


def test_a_launcher_relaying_its_childs_error_file_names_the_entry_once_in_the_child(envs, tmp_path):  # noqa: F811
    """main: two blocks, the child's after its traceback and the parent's after `ChildFailedError`, confirmed from the
    text the error file quoted (the parent never held the error). One block, the child's, where the error was."""
    plain, hooked = envs
    result = run(hooked, stub_library(tmp_path) + LIBRARY + _TORCHRUN, tmp_path)
    assert result.returncode == 1 and "ChildFailedError: \n=====" in result.stderr, result.stderr
    assert result.stderr.count("errorkb:") == 1, result.stderr
    child, parent = result.stderr.split("Traceback (most recent call last):\n", 2)[1:]
    assert TITLE in child and "errorkb" not in parent, result.stderr


def test_pythons_own_hooks_set_back_name_a_threads_error_and_the_programs_each_once(envs, tmp_path):  # noqa: F811
    """Round six's "c-hooks": `sys.excepthook` and `threading.excepthook` set back to Python's own, then an error that
    ends a thread and one that ends the program. Python's output unchanged; a block after the thread's report (round
    ten) and one at the program's exit (round nine): two errors, each named once."""
    code = (stub_library(tmp_path) + LIBRARY + "import sys, threading\nsys.excepthook = sys.__excepthook__\n"
            "threading.excepthook = threading.__excepthook__\n" + _THREAD + RAISE)
    with_hook, without = pair(envs, code, tmp_path)
    assert (with_hook.returncode, with_hook.stdout) == (without.returncode, without.stdout) == (1, "ran\n")
    assert unaddressed(BLOCK_RE.sub("", with_hook.stderr)) == unaddressed(without.stderr), with_hook.stderr
    thread, program = with_hook.stderr.split("Traceback (most recent call last):\n")[1:]
    assert thread.count(TITLE) == 1 and program.count(TITLE) == 1 and program.rstrip().endswith(
        "(offline: errorkb show head-dim-list-length)"), with_hook.stderr


# An error raised from the entry's error whose own message is huge (a tensor's repr, a whole file quoted). main: the
# matcher reads the last 64 KiB of a paste (`lookup.CAP`), all of them that one message: no block.
HUGE = {
    "100-kb": "try:\n    early_initialization()\nexcept ValueError as error:\n    raise RuntimeError('x' * 100_000) from error\n",
    "1-mb-lines": "try:\n    early_initialization()\nexcept ValueError as error:\n"
                  "    raise RuntimeError('\\n'.join(['y' * 99] * 10_000)) from error\n",
}


@pytest.mark.parametrize("case", list(HUGE))
def test_a_huge_message_raised_from_the_entrys_error_leaves_the_entry_named(envs, tmp_path, case):  # noqa: F811
    code = stub_library(tmp_path) + LIBRARY + HUGE[case]
    with_hook, without = pair(envs, code, tmp_path)
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1 and TITLE in added, with_hook.stderr[-2000:]


# Round ten's shapes that found nothing: Python's output, status and stdout, then one block where the entry's error is
# the one reported (in the process that held it), nothing otherwise.
FOUND_NOTHING = {
    # a worker's error re-raised in the parent: the worker printed nothing, the parent names it (its worker's text)
    "process-pool": ("import concurrent.futures as futures\nif __name__ == '__main__':\n"
                     "    with futures.ProcessPoolExecutor(1) as pool:\n"
                     "        pool.submit(early_initialization).result()\n", True),
    "multiprocessing-pool-spawn": ("import multiprocessing\nif __name__ == '__main__':\n"
                                   "    with multiprocessing.get_context('spawn').Pool(1) as pool:\n"
                                   "        pool.apply(early_initialization)\n", True),
    "thread-pool": ("import concurrent.futures as futures\nwith futures.ThreadPoolExecutor(1) as pool:\n"
                    "    pool.submit(early_initialization).result()\n", True),
    # a `Process` child prints its own error and block; the parent goes on (status 0)
    "spawn-process": ("import multiprocessing\nif __name__ == '__main__':\n"
                      "    child = multiprocessing.get_context('spawn').Process(target=early_initialization)\n"
                      "    child.start()\n    child.join()\n    print(child.exitcode)\n", True),
    # a child interpreter (the hook inherited through the environment's `.pth`), its status passed on
    "subprocess-child": ("import subprocess, sys\nif len(sys.argv) > 1:\n    early_initialization()\n"
                         "sys.exit(subprocess.run([sys.executable, __file__, 'child']).returncode)\n", True),
    # a traceback the program printed itself, then its own exit: no hook of Python's reported it (decided: no block)
    "print-exc-then-sys-exit": ("import sys, traceback\ntry:\n    early_initialization()\nexcept ValueError:\n"
                                "    traceback.print_exc()\n    sys.exit(1)\n", False),
    "print-exc-then-os-exit": ("import os, traceback\ntry:\n    early_initialization()\nexcept ValueError:\n"
                               "    traceback.print_exc()\n    os._exit(1)\n", False),
    # a `__str__` that raises, on the error raised from the entry's: Python prints "<exception str() failed>"
    "str-raises": ("class Odd(RuntimeError):\n    def __str__(self):\n        raise RuntimeError('no')\n"
                   "try:\n    early_initialization()\nexcept ValueError as error:\n    raise Odd() from error\n", True),
    # `sys.excepthook` set to no function: Python's "Error in sys.excepthook", then the block at exit (round nine)
    "excepthook-not-callable": ("import sys\nsys.excepthook = 3\n" + RAISE, True),
    # streams closed or replaced by objects with no `.buffer`, `.encoding`, `.fileno`
    "stdout-closed": ("import sys\nsys.stdout.close()\n" + RAISE, True),
    "stderr-none": ("import sys\nsys.stderr = None\n" + RAISE, False),
    "stderr-write-only": ("import sys\nclass Writer:\n    def write(self, text):\n        sys.__stderr__.write(text)\n"
                          "sys.stderr = Writer()\n" + RAISE, True),
}


@pytest.mark.parametrize("case", list(FOUND_NOTHING))
def test_shapes_that_found_nothing_print_pythons_output_then_one_block_or_none(envs, tmp_path, case):  # noqa: F811
    body, named = FOUND_NOTHING[case]
    code = stub_library(tmp_path) + LIBRARY + body
    with_hook, without = pair(envs, code, tmp_path)
    added = compare(with_hook, without)
    assert (added.startswith(BLOCK) and added.count("errorkb:") == 1) if named else added == "", with_hook.stderr


@pytest.mark.parametrize("environment", [{"PYTHONDONTWRITEBYTECODE": "1"}, {"PYTHONDONTWRITEBYTECODE": "1",
                                                                            "PYTHONPYCACHEPREFIX": "/proc/nowhere"}],
                         ids=["dont-write-bytecode", "unwritable-pycache-prefix"])
def test_an_interpreter_that_writes_no_bytecode_prints_pythons_output_then_one_block(envs, tmp_path,  # noqa: F811
                                                                                   environment):
    (tmp_path / "script.py").write_text(stub_library(tmp_path) + LIBRARY + RAISE, encoding="utf-8")
    with_hook, without = both(envs, tmp_path, env=environment)
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1, with_hook.stderr


# Round nine's `_errorkb_call`, as an environment's `.pth` holds it until `errorkb hook install` runs again.
_ROUND_NINE_CALL = '''def _errorkb_call(module, name, *args, _first=globals().get("_errorkb_first", sys.path[:1]), _Base=BaseException):
    traced = sys.gettrace(), sys.getprofile()
    try:
        sys.settrace(None), sys.setprofile(None)
        kb = sys.modules.get("errorkb") or sys.modules["_frozen_importlib"]._load(
            sys.modules["_frozen_importlib_external"].PathFinder.find_spec("errorkb", [_errorkb_home]))
        kb.hook_by_pth = 1
        from errorkb.hook import guard
        return guard.load(module, _first).__dict__[name](*args)
    except _Base:'''


def test_an_older_releases_pth_line_still_names_the_entry_and_install_rewrites_it(tmp_path):
    """The `.pth` line changed in round ten (it loads `errorkb.hook.guard` alone; `guard.call`). An environment whose
    `.pth` an older release wrote keeps its line until `errorkb hook install` runs again: it still prints the block
    (`guard.load` is the entry it calls), `errorkb hook status` calls it older, and `install` re-writes it."""
    import re

    from benchmarks.hook_startup import make_env
    from errorkb.hook import EXCEPTHOOK, HOME
    from errorkb.hook.pth import NAME

    start, end = EXCEPTHOOK.index("def _errorkb_call("), EXCEPTHOOK.index("    except _Base:")
    old = EXCEPTHOOK[:start] + _ROUND_NINE_CALL + EXCEPTHOOK[end + len("    except _Base:"):]
    python = make_env(tmp_path / "env", hook=False)
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    pth = os.path.join(site, NAME)
    with open(pth, "w", encoding="utf-8") as file:
        file.write(f"import sys; exec({old!r}, {{'sys': sys, '_errorkb_home': {HOME!r}}})\n")
    work = tmp_path / "work"
    work.mkdir()
    result = run(python, stub_library(work) + LIBRARY + RAISE, work)
    assert result.returncode == 1 and result.stderr.count("errorkb:") == 1 and TITLE in result.stderr, result.stderr
    status = subprocess.run([str(python), "-m", "errorkb.cli", "hook", "status"], capture_output=True, text=True,
                            timeout=120)
    assert "older errorkb's hook" in status.stdout + status.stderr, status.stdout + status.stderr
    subprocess.run([str(python), "-m", "errorkb.cli", "hook", "install"], capture_output=True, check=True, timeout=120)
    with open(pth, encoding="utf-8") as file:
        assert re.search(r"'_errorkb_guard': ", file.read()), "install left the older line"
