"""The hook under attack, round nine, in real interpreters with the hook on: a `sys.excepthook` the program set after
the `.pth` ran (`rich.traceback.install()`, a logger), where the entry went unnamed; pytest's hint where no `.pth` ran
(the guard was off, and a test folder's `json.py` ran for it); and the shapes that found nothing (kept, so that they
stay so): `faulthandler`, `-X dev`, warnings as errors, isolated and safe-path interpreters, an ASCII stderr, a
read-only home.

Decided (round nine): a program that replaced `sys.excepthook` chose its own printer, and the block never goes in
front of it nor into it; but the error still ended the program, and the user opted into the hook, so the block follows
at the program's exit (the `.pth`'s `atexit` callback, after the program's own callbacks), once. Not by an audit hook
(`sys.addaudithook`, which sees the moment Python calls the hook): it cannot be removed, and every audited event
costs a Python call for the rest of the process (`id()` 0.02 → 0.76 µs, `copy.deepcopy` of 1,000 small dicts twice as
slow: benchmarks/hook_exit_check.py prints them).
"""

from __future__ import annotations

import subprocess

import pytest

from tests.hookrun import BLOCK, LIBRARY, RAISE, both, compare, pair
from tests.test_hook import TITLE, envs, run, stub_library  # noqa: F401 (a fixture)

# Hooks a program sets after the `.pth` ran. main: Python called theirs alone, and no block came at all.
_LOGGER = "import sys\nsys.excepthook = lambda kind, value, tb: print('mine:', kind.__name__, file=sys.stderr)\n"
REPLACED = {
    "rich": "from rich.traceback import install\ninstall(width=100)\n",
    "logger": _LOGGER,
    "python-s-own-restored": "import sys\nsys.excepthook = sys.__excepthook__\n",
    "logger-and-program-atexit": "import atexit, sys\natexit.register(lambda: print('atexit ran', file=sys.stderr))\n"
                                 + _LOGGER,
    "raised-again-after-noting": _LOGGER + "try:\n    early_initialization()\nexcept ValueError:\n"
                                 "    print('noted', file=sys.stderr)\n    raise\n",
}


@pytest.mark.parametrize("hook", list(REPLACED))
def test_an_error_reported_by_a_hook_the_program_set_is_named_once_after_everything_it_printed(envs, tmp_path,  # noqa: F811
                                                                                              hook):
    code = stub_library(tmp_path) + LIBRARY + REPLACED[hook] + RAISE
    with_hook, without = pair(envs, code, tmp_path)
    assert without.returncode == 1 and "errorkb" not in without.stderr, without.stderr
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1 and TITLE in added, with_hook.stderr


# Where the block must not follow: an error the program caught and noted in `sys.last_value` itself (as a console
# does) and survived, or left through `sys.exit`; an interactive session (its last error is no program's end); an
# error that is no entry's.
NOT_NAMED = {
    "survived-and-noted": (_LOGGER + "try:\n    early_initialization()\nexcept ValueError:\n"
                           "    sys.last_type, sys.last_value, sys.last_traceback = sys.exc_info()\n    print('survived')\n",
                           []),
    "noted-then-sys-exit": (_LOGGER + "try:\n    early_initialization()\nexcept ValueError:\n"
                            "    sys.last_type, sys.last_value, sys.last_traceback = sys.exc_info()\n    sys.exit(3)\n",
                            []),
    "interactive": (_LOGGER + RAISE, ["-i"]),
    "unrelated-error": (_LOGGER + "raise ValueError('nothing any entry documents')\n", []),
}


@pytest.mark.parametrize("case", list(NOT_NAMED))
def test_no_block_at_exit_for_an_error_that_did_not_end_the_program(envs, tmp_path, case):  # noqa: F811
    body, flags = NOT_NAMED[case]
    (tmp_path / "script.py").write_text(stub_library(tmp_path) + LIBRARY + body, encoding="utf-8")
    with_hook, without = both(envs, tmp_path, argv=[*flags, "script.py"], stdin=subprocess.DEVNULL)
    assert compare(with_hook, without) == "", with_hook.stderr


def test_the_pytest_hint_where_no_pth_ran_never_runs_a_module_of_the_test_folder(envs, tmp_path):  # noqa: F811
    """pytest's hint in an environment without the hook's `.pth` (`pip install errorkb`, no `errorkb hook install`):
    a test folder's `json.py`, imported by a test, is what the explainer's `import json` got. main: the folder's
    `json.loads` ran for the hint (its line in the session's output), because the guard, fed the path as it was
    when `errorkb.hook` was imported (the test folder first), took the test folder for Python's own."""
    from tests.test_hook_round_eight import BEFORE

    plain, hooked = envs
    (tmp_path / "json.py").write_text(BEFORE["json"], encoding="utf-8")
    (tmp_path / "test_it.py").write_text(stub_library(tmp_path) + "import json\n" + LIBRARY +
                                         "def test_it():\n    " + RAISE, encoding="utf-8")
    result = subprocess.run([str(plain), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert result.returncode == 1 and "1 failed" in result.stdout, result.stdout + result.stderr
    assert "RAN" not in result.stdout + result.stderr, result.stdout


def test_the_pytest_hint_where_no_pth_ran_names_the_librarys_error_never_the_tests_own(envs, tmp_path):  # noqa: F811
    plain, hooked = envs
    (tmp_path / "test_it.py").write_text(
        stub_library(tmp_path) + LIBRARY + "def test_library():\n    " + RAISE + "def test_own():\n"
        "    raise ValueError('`head_dim` was provided as a list of length 12, but the Cache currently has 12 layers')\n",
        encoding="utf-8")
    result = subprocess.run([str(plain), "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "2 failed" in result.stdout, result.stdout + result.stderr
    hints = result.stdout[result.stdout.index("errorkb: documented errors"):]
    assert "test_it.py::test_library:" in hints and "test_own" not in hints.split("short test summary")[0], hints


# Interpreters and environments round nine tried that found nothing: Python's output, status and stdout, then one
# block (or, with `-S`, no `.pth` processed: nothing).
FOUND_NOTHING = {
    "faulthandler": ([], {}, "import faulthandler\nfaulthandler.enable()\n", True),
    "dev-mode": (["-X", "dev"], {}, "", True),
    "warnings-as-errors": (["-W", "error"], {}, "", True),
    "PYTHONWARNINGS-error": ([], {"PYTHONWARNINGS": "error"}, "", True),
    "isolated": (["-I"], {}, "", True),
    "no-site": (["-S"], {}, "", False),
    "PYTHONSAFEPATH": ([], {"PYTHONSAFEPATH": "1"}, "", True),
    "ascii-stderr": ([], {"PYTHONIOENCODING": "ascii"}, "", True),
    "read-only-home": ([], {"HOME": "/proc", "XDG_CACHE_HOME": "/proc"}, "", True),
}


@pytest.mark.parametrize("case", list(FOUND_NOTHING))
def test_interpreter_flags_and_environments_print_pythons_output_then_one_block(envs, tmp_path, case):  # noqa: F811
    flags, environment, before, named = FOUND_NOTHING[case]
    (tmp_path / "script.py").write_text(stub_library(tmp_path) + before + LIBRARY + RAISE, encoding="utf-8")
    with_hook, without = both(envs, tmp_path, argv=[*flags, "script.py"], env=environment)
    added = compare(with_hook, without)
    if not named:
        assert added == "", with_hook.stderr
        return
    assert added.startswith(BLOCK.replace("—", "\\u2014") if case == "ascii-stderr" else BLOCK), with_hook.stderr
    assert added.count("errorkb:") == 1, with_hook.stderr


# A launcher (`torchrun`, `accelerate launch`-like) that runs the program in a child interpreter and, when it fails,
# raises an error of its own whose message carries the child's report as text (here its whole stderr, the child's
# block included). main: the parent named the entry a second time, from the quoted text, after its own traceback.
_LAUNCHER = """\
import subprocess, sys
if len(sys.argv) > 1:
    early_initialization()
class ChildFailedError(Exception):
    pass
child = subprocess.run([sys.executable, __file__, 'child'], capture_output=True, text=True)
raise ChildFailedError('script.py FAILED\\nRoot Cause (first observed failure):\\n  exitcode: 1\\n' + child.stderr)
"""


def test_a_launcher_relaying_its_childs_report_names_the_entry_once(envs, tmp_path):  # noqa: F811
    """The child, an interpreter with the hook, named the entry after its own traceback; the parent's report quotes
    it. One block on the user's screen: the child's (where the live error was), never a second from the parent."""
    plain, hooked = envs
    result = run(hooked, stub_library(tmp_path) + LIBRARY + _LAUNCHER, tmp_path)
    assert result.returncode == 1 and "ChildFailedError: script.py FAILED" in result.stderr, result.stderr
    assert result.stderr.count(TITLE) == 1, result.stderr
    assert result.stderr.rstrip().endswith("(offline: errorkb show head-dim-list-length)"), result.stderr


# A program's own `errorkb.py`, imported after a thread's error it survived (which loaded the package for the block),
# or before it. Round nine's strict xfail: the `.pth` loaded the package itself, outside the guard's imports, so the
# program's later `import errorkb` got the package; imported first, the program's module was taken for the package
# (`hook_by_pth` set on it) and nothing was named. Round ten: the `.pth` loads `errorkb.hook.guard` alone, and
# `guard.package` holds the package in `sys.modules` only while the hook works.
_OWN_ERRORKB = {
    "after-the-error": ("import threading\nthread = threading.Thread(target=early_initialization)\nthread.start()\n"
                        "thread.join()\nimport errorkb\n"),
    "before-the-error": ("import errorkb\nimport threading\nthread = threading.Thread(target=early_initialization)\n"
                         "thread.start()\nthread.join()\n"),
}


@pytest.mark.parametrize("order", list(_OWN_ERRORKB))
def test_a_programs_own_errorkb_is_its_own_and_the_error_is_named(envs, tmp_path, order):  # noqa: F811
    (tmp_path / "errorkb.py").write_text("MINE = 'the program s own errorkb'\n", encoding="utf-8")
    code = (stub_library(tmp_path) + LIBRARY + _OWN_ERRORKB[order] +
            "print(getattr(errorkb, 'MINE', 'the package'), sorted(vars(errorkb).keys() - {'__builtins__'}))\n"
            "import sys\nprint(sys.modules['errorkb'] is errorkb)\n")
    with_hook, without = pair(envs, code, tmp_path)
    assert without.stdout.startswith("the program s own errorkb"), without.stderr
    added = compare(with_hook, without)
    assert added.startswith(BLOCK) and added.count("errorkb:") == 1 and TITLE in added, with_hook.stderr
