"""The hook under attack, round sixteen: what a program does around the hook after it was installed (hooks replaced,
an `atexit` callback that raises, `sys.exit` with an exception), exceptions hostile to a second reading (a `__str__`
that raises, hangs or returns 50 MB), a group holding a `KeyboardInterrupt` beside the entry's error, frames from a
zip import or a frozen module, `logging.exception`, a Ctrl-C inside the explainer, and one while the chains are made.
Each in real interpreters with the hook and without it: Python's output, stdout and exit status unchanged, never a
traceback of errorkb's, the block where (and only where) the error the program died of is the entry's.

One class found (the last two tests, each failed on main): the chains swallowed any `BaseException` of their own
work, what is no error of errorkb's with its failures. `chains.done`, while it chained on a module the program was
importing: a Ctrl-C that landed there was lost and the import went on, unchained; `on_multiprocessing`'s `_bootstrap`,
while it prepared a child: the child ran its target all the same. The rest found nothing and are kept as tests. The teardown limit (tests/test_hook_hostile.py's strict xfail) was tried again
here: why it stays is in its reason and benchmarks/hook_teardown.py.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from tests.hookrun import LIBRARY, RAISE, blocks, both, compare, one_block
from tests.test_hook import HEAD_DIM, TITLE, envs, stub_library  # noqa: F401 (a fixture)

# The entry's error relayed by a class of the program's whose `__str__` does something else when errorkb's thread
# reads it (any thread but the main one: Python's own report reads it in the main thread, at once).
_SECOND_READ = ("import threading\nMAIN = threading.get_ident()\nclass Odd(ValueError):\n    def __str__(self):\n"
                "        if threading.get_ident() != MAIN:\n            {then}\n        return super().__str__()\n"
                "try:\n    early_initialization()\nexcept ValueError as error:\n    raise Odd(str(error)) from error\n")

# (the program, after the stand-in library and `early_initialization`; whether the block names the entry)
CASES = {
    # hooks the program replaced after the `.pth` installed errorkb's, printing alone: named at the exit (round nine),
    # once the thread's hook returned (round ten)
    "excepthook-replaced": ("import sys\nsys.excepthook = lambda *args: print('mine', file=sys.stderr)\n"
                            "early_initialization()\n", True),
    "excepthook-replaced-by-one-that-raises": ("import sys\ndef hook(*args):\n    raise RuntimeError('tool broke')\n"
                                               "sys.excepthook = hook\nearly_initialization()\n", True),
    "threading-excepthook-replaced": ("import sys, threading\nthreading.excepthook = lambda args: print('mine', "
                                      "file=sys.stderr)\nthread = threading.Thread(target=early_initialization)\n"
                                      "thread.start()\nthread.join()\nprint('went on')\n", True),
    # an `atexit` callback that raises: the entry's error after another error ended the program (two reports, the
    # block after the callback's), a Ctrl-C, a `SystemExit`, and one that replaces `sys.excepthook` at the exit
    "atexit-raises-after-an-unrelated-error": ("import atexit\natexit.register(early_initialization)\n"
                                               "raise KeyError('unrelated')\n", True),
    "atexit-raises-keyboard-interrupt": ("import atexit\ndef stop():\n    raise KeyboardInterrupt\n"
                                         "atexit.register(stop)\nearly_initialization()\n", True),
    "atexit-calls-sys-exit": ("import atexit, sys\natexit.register(sys.exit, 3)\nearly_initialization()\n", True),
    "atexit-replaces-excepthook": ("import atexit, sys\natexit.register(setattr, sys, 'excepthook', print)\n"
                                   "early_initialization()\n", True),
    # `sys.exit` with an exception object: Python prints its words, calls no hook (a `SystemExit`): no block
    "sys-exit-with-the-error": ("import sys\ntry:\n    early_initialization()\nexcept ValueError as error:\n"
                                "    sys.exit(error)\n", False),
    "sys-exit-with-a-new-exception": (f"import sys\nsys.exit(ValueError({HEAD_DIM!r}))\n", False),
    # a second reading that fails (raises, a Ctrl-C too: the traceback module's printer reads "<exception str() failed>"
    # for it): the cause Python printed is the library's own error, named; a Ctrl-C sent to the main thread while the
    # hook waits for the explainer, or a `__str__` stuck in C there (the deadline): nothing added
    "str-raises-on-the-second-read": (_SECOND_READ.format(then="raise RuntimeError('read once')"), True),
    "str-raises-keyboard-interrupt-on-the-second-read": (_SECOND_READ.format(then="raise KeyboardInterrupt"), True),
    "str-interrupts-the-main-thread-on-the-second-read": (
        _SECOND_READ.format(then="import _thread, time\n            _thread.interrupt_main()\n"
                                 "            time.sleep(1)"), False),
    "str-sleeps-in-c-on-the-second-read": (_SECOND_READ.format(then="import time\n            time.sleep(3600)"),
                                           False),
    "repr-raises": ("class Odd(ValueError):\n    def __repr__(self):\n        raise RuntimeError('no repr')\n"
                    "try:\n    early_initialization()\nexcept ValueError as error:\n"
                    "    raise Odd(str(error)) from error\n", True),
    # a group Python prints, which holds the entry's error beside a Ctrl-C: a `BaseExceptionGroup`, no `Exception`:
    # the hook runs nothing for it, as for any `BaseException` (a Ctrl-C's exit status is Python's to keep)
    "base-exception-group": ("try:\n    early_initialization()\nexcept ValueError as error:\n"
                             "    raise BaseExceptionGroup('both', [KeyboardInterrupt(), error])\n", False),
    # `logging.exception` prints the traceback itself, through no hook: nothing added, the program goes on
    "logging-exception": ("import logging\ntry:\n    early_initialization()\nexcept ValueError:\n"
                          "    logging.exception('failed')\nprint('went on')\n", False),
}


@pytest.mark.parametrize("case", list(CASES))
def test_round_sixteens_programs(envs, tmp_path, case):  # noqa: F811
    """Python's output, stdout and status as without errorkb once the blocks are taken out (`blocks`: a block may
    come before an `atexit` callback's report), and one block, the entry's, where it is named; none otherwise."""
    code, named = CASES[case]
    found = blocks(*both(envs, tmp_path, code, timeout=120))
    assert (len(found) == 1 and TITLE in found[0]) if named else found == [], found


def test_a_frame_of_a_frozen_module_leaves_the_block_as_it_is(envs, tmp_path):  # noqa: F811
    """`python -m script`: runpy's frames are frozen (`<frozen runpy>`), the first of the traceback: one block."""
    (tmp_path / "script.py").write_text(stub_library(tmp_path) + LIBRARY + RAISE, encoding="utf-8")
    text = compare(*both(envs, tmp_path, argv=["-m", "script"], timeout=120))
    assert one_block(text) and TITLE in text, text


def test_a_library_imported_from_a_zip_is_named_as_from_its_folder(envs, tmp_path):  # noqa: F811
    """The stand-in library imported from a zip named like an installed library's folder (zipimport, as an egg: the
    frames' files are `<zip>/transformers/...`, their source lines read through the zip's loader): Python's output
    unchanged, then one block, as for the folder."""
    archive = tmp_path / "site-packages.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.writestr("transformers/__init__.py", "class DynamicCache:\n    pass\n")
        zipped.writestr("transformers/cache_utils.py", f"def early_initialization():\n    raise ValueError({HEAD_DIM!r})\n")
    (tmp_path / "script.py").write_text(f"import sys\nsys.path.insert(0, {str(archive)!r})\n"
                                        "from transformers.cache_utils import early_initialization\n"
                                        "early_initialization()\n", encoding="utf-8")
    with_hook, without = both(envs, tmp_path, timeout=120)
    assert "site-packages.zip/transformers/cache_utils.py\", line 2" in without.stderr, without.stderr
    text = compare(with_hook, without)
    assert one_block(text) and TITLE in text, text


# Python's peak memory with a 50 MB message (the explainer reads it again: `__str__` returns a new one) and without.
_PEAK = ("import resource, subprocess, sys\nsubprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
         "stderr=subprocess.DEVNULL)\nprint(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
_HUGE = ("class Huge(ValueError):\n    def __str__(self):\n        return super().__str__() + 'x' * 50_000_000\n"
         "try:\n    early_initialization()\nexcept ValueError as error:\n    raise Huge(str(error)) from error\n")


def test_a_message_of_50_mb_costs_the_hook_no_more_than_two_copies_of_it(envs, tmp_path):  # noqa: F811
    """A `__str__` that returns 50 MB (Python prints it all): the hook reads it once more and keeps at most its ends
    (`explain._shorten`); its peak memory over Python's own stays under two copies of the message, and the block
    follows Python's output."""
    plain, hooked = envs
    with_hook, without = both(envs, tmp_path, _HUGE, timeout=120)
    text = compare(with_hook, without)
    assert one_block(text) and TITLE in text, text
    peaks = {str(python): int(subprocess.run([sys.executable, "-c", _PEAK, str(python), "script.py"], cwd=tmp_path,
                                             capture_output=True, text=True, check=True, timeout=120).stdout)
             for python in (plain, hooked)}  # KiB
    assert peaks[str(hooked)] - peaks[str(plain)] < 2 * 50_000, peaks


# A Ctrl-C that lands while the chains are made (after `threading`'s own code ran, while errorkb wraps its hooks):
# `threading` stands in a folder of the program's first on the path, and the first reading of its `excepthook` raises
# SIGINT's KeyboardInterrupt, as the signal's handler would at that instruction.
_STAND_IN = ("import signal, sys\ndef __getattr__(name):\n    if name != 'excepthook':\n"
             "        raise AttributeError(name)\n    if not hasattr(sys, 'fired'):\n        sys.fired = True\n"
             "        signal.raise_signal(signal.SIGINT)\n    return print\ndef _shutdown():\n    pass\n")
_CTRL_C_WHILE_CHAINING = ("import sys\nsys.path.insert(0, 'mine')\ntry:\n    import threading\n    print('imported')\n"
                          "except KeyboardInterrupt:\n    print('interrupted')\nimport threading\n"
                          "print('chained', 'excepthook' in vars(threading))\n")


def test_a_ctrl_c_while_the_chains_are_made_reaches_the_program(envs, tmp_path):  # noqa: F811
    """`chains.done` swallowed any `BaseException` of the chaining: a Ctrl-C that landed there was lost and the
    program's import went on ("imported"), as the finder's call did before session 61. Now it reaches the program's
    `except`, and the next `import threading` (the module's code run again) is chained all the same (errorkb's hook
    set on the module, where without errorkb the module has none of its own)."""
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "threading.py").write_text(_STAND_IN, encoding="utf-8")
    (tmp_path / "script.py").write_text(_CTRL_C_WHILE_CHAINING, encoding="utf-8")
    with_hook, without = both(envs, tmp_path, timeout=120)
    assert without.stdout == "imported\nchained False\n", without.stdout + without.stderr
    assert with_hook.stdout == "interrupted\nchained True\n", with_hook.stdout + with_hook.stderr
    assert with_hook.stderr == without.stderr == "", with_hook.stderr


# The same in a `multiprocessing` child: errorkb's `_bootstrap` imports `traceback` there before the target runs (a
# finder of the program's raises SIGINT's KeyboardInterrupt for it in the child alone, as the signal's handler would).
_CTRL_C_IN_A_CHILD = (
    "import multiprocessing, os, sys\nPARENT = os.getpid()\nclass Finder:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name == 'traceback' and os.getpid() != PARENT:\n            raise KeyboardInterrupt\n        return None\n"
    "sys.meta_path.insert(0, Finder())\nif __name__ == '__main__':\n    multiprocessing.set_start_method('fork')\n"
    "    child = multiprocessing.Process(target=print, args=('target ran',))\n    child.start()\n    child.join()\n"
    "    print('exitcode', child.exitcode)\n")


def test_a_ctrl_c_while_errorkb_prepares_a_multiprocessing_child_ends_it(envs, tmp_path):  # noqa: F811
    """`chains.on_multiprocessing`'s `_bootstrap` swallowed any `BaseException` of its own preparation and ran the
    child's target all the same: a Ctrl-C that landed there was lost (the target ran, exit code 0). Now it ends the
    child as it would where it lands in `BaseProcess._bootstrap` before the target (exit code 1, no target)."""
    (tmp_path / "script.py").write_text(_CTRL_C_IN_A_CHILD, encoding="utf-8")
    with_hook, without = both(envs, tmp_path, timeout=120)
    assert without.stdout == "target ran\nexitcode 0\n", without.stdout + without.stderr
    assert with_hook.stdout == "exitcode 1\n", with_hook.stdout + with_hook.stderr
