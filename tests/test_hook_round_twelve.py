"""The hook under attack, round twelve (issue 19, "where the user is"), in real interpreters with the hook on.

A program that relays the library's error in its own `raise`, with the same words (`raise ValueError(str(error))`
in a handler, or `... from None`): Python printed the entry's words, the library's raise above them (or hidden by
`from None`), and main printed no block: the printed chain read as one paste ends with the user's raise of the
words, whose complete traceback shows no frame of the library ("another caller's"). The live chain says the words
are the library's error's: each error Python printed (a cause, a context), and the context whose words the
program's error repeats (the one `from None` hides), is read alone by the same matcher, as a group's members are.

A program that is no interactive session but sets `sys.ps1` (as consoles do; code that asks `hasattr(sys, "ps1")`
whether it runs interactively) and reports its end through a `sys.excepthook` of its own: the exit check took it
for a console and printed nothing.

The thread rule's private function (`threading._make_invoke_excepthook`): a Python whose `threading` holds it under
another name leaves the public `threading.excepthook` to name a thread's error, once, and nothing breaks.

Then the hostile programs of round twelve: an error where Python reported it gets one block naming the entry, where
Python reported it (a replaced `sys.stderr` included); none where Python reported nothing; never a traceback of the
hook's own.
"""

from __future__ import annotations

import pytest

from tests.hookrun import BLOCK, BLOCK_RE, RAISE, added, blocks, both, compare, one_block, unaddressed
from tests.test_hook import TITLE, envs  # noqa: F401 (a fixture)

# The program's own `raise` relays the library's error with the same words: Python printed them, so the block;
# confirmed where Python printed the library's error too, possible where `from None` hid it (round sixteen's rule).
POSSIBLE = "\nerrorkb: possibly a documented error, not confirmed"
RELAYED = {
    "handler-same-words": ("try:\n    early_initialization()\nexcept ValueError as error:\n"
                           "    raise ValueError(str(error))\n", BLOCK),
    "handler-same-words-from-none": ("try:\n    early_initialization()\nexcept ValueError as error:\n"
                                     "    raise ValueError(str(error)) from None\n", POSSIBLE),
    "handler-args-from-none": ("try:\n    early_initialization()\nexcept ValueError as error:\n"
                               "    raise ValueError(*error.args) from None\n", POSSIBLE),
    "exit-same-words": ("class Relay:\n    def __enter__(self):\n        return self\n"
                        "    def __exit__(self, kind, error, traceback):\n        if error is not None:\n"
                        "            raise RuntimeError(str(error)) from None\nwith Relay():\n"
                        "    early_initialization()\n", POSSIBLE),
    "compiled-as-string-from-none": ("exec(compile('try:\\n    early_initialization()\\nexcept ValueError as error:"
                                     "\\n    raise ValueError(str(error)) from None\\n', '<string>', 'exec'))\n",
                                     POSSIBLE),
}


@pytest.mark.parametrize("case", list(RELAYED))
def test_an_error_relayed_with_the_librarys_words_is_named(envs, tmp_path, case):  # noqa: F811
    """main: no block (the chain read as one paste ends with the user's own raise of the words)."""
    code, head = RELAYED[case]
    text = added(envs, tmp_path, code)
    assert text.startswith(head) and text.count("errorkb:") == 1 and BLOCK_RE.sub("", text) == "", text
    assert TITLE.removeprefix("errorkb: a documented error — ") in text, text
    if head == POSSIBLE:
        assert "from None" in text, text


# Where Python printed no words of the entry's, a hidden context names nothing: the program's error is another one.
NOT_RELAYED = {
    "other-words-from-none": "try:\n    early_initialization()\nexcept ValueError:\n"
                             "    raise RuntimeError('loading failed') from None\n",
    "own-words-alone": "raise ValueError('`head_dim` was provided as a list of length 12, but the Cache currently has "
                       "12 layers')\n",
    "longer-words-from-none": "try:\n    early_initialization()\nexcept ValueError as error:\n"
                              "    raise RuntimeError('while loading') from None\n",
}


@pytest.mark.parametrize("case", list(NOT_RELAYED))
def test_a_hidden_context_whose_words_python_did_not_print_names_nothing(envs, tmp_path, case):  # noqa: F811
    text = added(envs, tmp_path, NOT_RELAYED[case])
    assert "a documented error —" not in text and "Traceback" not in text, text


_OWN_HOOK = "import sys\nsys.excepthook = lambda *args: sys.__excepthook__(*args)\n"


def test_a_program_that_sets_ps1_and_its_own_excepthook_is_named_at_its_end(envs, tmp_path):  # noqa: F811
    """main: no block (the exit check took `sys.ps1` for a console's, whose last error ends no program)."""
    text = added(envs, tmp_path, "sys.ps1 = '>>> '\n" + _OWN_HOOK + RAISE)
    assert one_block(text) and TITLE in text, text


# Interactive sessions (`-i`, PYTHONINSPECT set by the program: Python's console follows the script): an error the
# program's own hook reported before the prompt is no error the program ended with; errorkb's hook names it there.
INTERACTIVE = {
    "dash-i-errorkbs-hook": (("-i", "script.py"), RAISE, "", 1),
    "dash-i-own-hook": (("-i", "script.py"), _OWN_HOOK + RAISE, "", 0),
    "dash-i-prompt-error": (("-i", "script.py"), "", "early_initialization()\n", 1),
    "pythoninspect-own-hook": (("script.py",), "import os\nos.environ['PYTHONINSPECT'] = '1'\n" + _OWN_HOOK + RAISE,
                               "", 0),
    "ps1-errorkbs-hook": (("script.py",), "sys.ps1 = '>>> '\n" + RAISE, "", 1),
}


@pytest.mark.parametrize("case", list(INTERACTIVE))
def test_an_interactive_session_gets_a_block_where_errorkbs_hook_reported(envs, tmp_path, case):  # noqa: F811
    argv, code, typed, expected = INTERACTIVE[case]
    with_hook, without = both(envs, tmp_path, code, argv=argv, input=typed)
    found = blocks(with_hook, without)
    assert len(found) == expected and all(TITLE in block for block in found), with_hook.stderr
    assert "errorkb/hook" not in with_hook.stderr, with_hook.stderr


# A `threading` that holds `_make_invoke_excepthook` under another name (another Python's): the loader the hook
# chains after renames it, and `Thread.__init__`'s reference with it, before the chains see the module.
_RENAMED = """\
import importlib.machinery, sys
class Renaming:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != 'threading':
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        real = spec.loader
        class Loader:
            def create_module(self, spec):
                return real.create_module(spec)
            def exec_module(self, module):
                real.exec_module(module)
                module._invoke_excepthook_maker = module.__dict__.pop('_make_invoke_excepthook')
                code = module.Thread.__init__.__code__
                names = tuple('_invoke_excepthook_maker' if name == '_make_invoke_excepthook' else name
                              for name in code.co_names)
                module.Thread.__init__.__code__ = code.replace(co_names=names)
        spec.loader = Loader()
        return spec
assert 'threading' not in sys.modules
sys.meta_path.insert(1, Renaming)
import threading
assert not hasattr(threading, '_make_invoke_excepthook')
{setup}thread = threading.Thread(target=early_initialization)
thread.start()
thread.join()
print('ran')
"""
WITHOUT_PRIVATE = {
    "errorkbs-threading-hook": ("", 1),
    "own-threading-hook-after": ("threading.excepthook = lambda args: print('mine', file=sys.stderr)\n", 0),
    "pythons-threading-hook-put-back": ("threading.excepthook = threading.__excepthook__\n", 0),
    "own-hook-calling-errorkbs": ("previous = threading.excepthook\n"
                                  "def mine(args):\n    print('mine', file=sys.stderr)\n    previous(args)\n"
                                  "threading.excepthook = mine\n", 1),
}


@pytest.mark.parametrize("case", list(WITHOUT_PRIVATE))
def test_a_threading_without_the_private_function_names_a_threads_error_through_the_public_hook(envs, tmp_path,  # noqa: F811
                                                                                                 case):
    """No private name: `threading.excepthook` (errorkb's, or one of the program's that calls it) names the error
    once; a hook the program set after errorkb's, which calls none of errorkb's, prints alone (the limit the private
    function lifts: docs/contributing.md, round twelve); `Thread()` works and no frame of errorkb's is shown."""
    setup, expected = WITHOUT_PRIVATE[case]
    with_hook, without = both(envs, tmp_path, _RENAMED.format(setup=setup))
    assert without.stdout == "ran\n" and ("ValueError" in without.stderr or without.stderr == "mine\n"), \
        without.stderr
    found = blocks(with_hook, without)
    assert len(found) == expected and all(TITLE in block for block in found), with_hook.stderr
    assert "errorkb/hook" not in with_hook.stderr, with_hook.stderr


# A program that reads Python's report from a `StringIO` it put in `sys.stderr`, then prints it: the block is where
# the report went, after it, once; nothing on the real stream.
CAPTURED = {
    "thread": "import io, threading\nthread = threading.Thread(target=early_initialization)\n"
              "buffer = io.StringIO()\nsys.stderr = buffer\nthread.start()\nthread.join()\n",
    "del": "import io\nclass Holder:\n    def __del__(self):\n        early_initialization()\n"
           "buffer = io.StringIO()\nsys.stderr = buffer\nHolder()\n",
    "excepthook-by-hand": "import io\nbuffer = io.StringIO()\nsys.stderr = buffer\ntry:\n    early_initialization()\n"
                          "except ValueError:\n    sys.excepthook(*sys.exc_info())\n",
}


@pytest.mark.parametrize("case", list(CAPTURED))
def test_a_report_captured_in_a_stringio_then_printed_carries_its_block(envs, tmp_path, case):  # noqa: F811
    code = CAPTURED[case] + "sys.stderr = sys.__stderr__\nprint(buffer.getvalue(), end='')\n"
    with_hook, without = both(envs, tmp_path, code)
    assert with_hook.returncode == without.returncode == 0 and with_hook.stderr == without.stderr == "", \
        with_hook.stderr
    assert "ValueError" in without.stdout and "errorkb:" not in without.stdout, without.stdout
    assert unaddressed(BLOCK_RE.sub("", with_hook.stdout)) == unaddressed(without.stdout), with_hook.stdout
    found = BLOCK_RE.findall(with_hook.stdout)
    assert len(found) == 1 and TITLE in found[0], with_hook.stdout
    assert with_hook.stdout.index("ValueError") < with_hook.stdout.index("errorkb:"), with_hook.stdout


# Round twelve's hostile programs: (code, blocks): how many blocks follow Python's unchanged output.
HOSTILE = {
    # `sys.unraisablehook`: a `__del__` while the program runs (a cycle collected, warnings turned into errors)
    "del-in-collected-cycle": ("import gc\nclass Holder:\n    def __del__(self):\n        early_initialization()\n"
                               "holder = Holder()\nholder.me = holder\ndel holder\ngc.collect()\nprint('ran')\n", 1),
    "del-warnings-error": ("import gc, warnings\nwarnings.simplefilter('error')\nclass Holder:\n"
                           "    def __del__(self):\n        early_initialization()\nholder = Holder()\n"
                           "holder.me = holder\ndel holder\ngc.collect()\nprint('ran')\n", 1),
    # `ExitStack` and `__exit__`: a callback raising, an exit replacing an error, one suppressing it
    "exitstack-callback": ("import contextlib\nwith contextlib.ExitStack() as stack:\n"
                           "    stack.callback(early_initialization)\n", 1),
    "exit-raises-the-entry": ("class Closing:\n    def __enter__(self):\n        return self\n"
                              "    def __exit__(self, *exc):\n        early_initialization()\n"
                              "with Closing():\n    raise KeyError('unrelated')\n", 1),
    "exit-replaces-the-entry": ("class Closing:\n    def __enter__(self):\n        return self\n"
                                "    def __exit__(self, *exc):\n        raise RuntimeError('cleanup failed')\n"
                                "with Closing():\n    early_initialization()\n", 1),
    "exit-suppresses": ("import contextlib\nwith contextlib.suppress(ValueError):\n    early_initialization()\n"
                        "print('ran')\n", 0),
    # exception groups: `except*` raising the entry's error, a member left unhandled, nested task groups
    "except-star-raises": ("try:\n    raise ExceptionGroup('g', [ValueError('a')])\nexcept* ValueError:\n"
                           "    early_initialization()\n", 1),
    "except-star-leaves-the-member": ("try:\n    try:\n        early_initialization()\n    except ValueError as e:\n"
                                      "        raise ExceptionGroup('g', [e, KeyError(1)])\nexcept* KeyError:\n"
                                      "    pass\n", 1),
    "except-star-handles-it": ("try:\n    try:\n        early_initialization()\n    except ValueError as e:\n"
                               "        raise ExceptionGroup('g', [e])\nexcept* ValueError:\n    print('handled')\n",
                               0),
    "task-groups-nested": ("import asyncio\nasync def fails():\n    early_initialization()\nasync def inner():\n"
                           "    async with asyncio.TaskGroup() as group:\n        group.create_task(fails())\n"
                           "async def main():\n    async with asyncio.TaskGroup() as group:\n"
                           "        group.create_task(inner())\nasyncio.run(main())\n", 1),
    # `warnings.filterwarnings("error")`: the error as ever; a deprecation turned into the exception is no entry's
    "warnings-error-then-the-entry": ("import warnings\nwarnings.filterwarnings('error')\n" + RAISE, 1),
    "warnings-error-deprecation-ends-it": ("import warnings\nwarnings.filterwarnings('error')\ndef old():\n"
                                           "    warnings.warn('old() is deprecated', FutureWarning)\n"
                                           "    early_initialization()\nold()\n", 0),
    "warnings-error-handled-then-the-entry": ("import warnings\nwarnings.simplefilter('error')\ntry:\n"
                                              "    warnings.warn('x', DeprecationWarning)\n"
                                              "except DeprecationWarning:\n    early_initialization()\n", 1),
    # `exec` / `eval` frames and code compiled under `<stdin>` / `<string>`
    "exec": ("exec('early_initialization()')\n", 1),
    "eval": ("eval('early_initialization()')\n", 1),
    "compiled-as-stdin": ("exec(compile('early_initialization()', '<stdin>', 'exec'))\n", 1),
    # `faulthandler` on
    "faulthandler": ("import faulthandler\nfaulthandler.enable()\n" + RAISE, 1),
    "faulthandler-thread": ("import faulthandler, threading\nfaulthandler.enable(all_threads=True)\n"
                            "thread = threading.Thread(target=early_initialization)\nthread.start()\nthread.join()\n",
                            1),
    # C code between the program and the library (`json`'s encoder, `struct`, `sorted`), and C code's own error
    "json-default": ("import json\njson.dumps(object(), default=lambda o: early_initialization())\n", 1),
    "struct-index": ("import struct\nclass Index:\n    def __index__(self):\n        early_initialization()\n"
                     "struct.pack('i', Index())\n", 1),
    "sorted-key": ("sorted([2, 1], key=lambda item: early_initialization())\n", 1),
    "json-decode-error": ("import json\njson.loads('{')\n", 0),
    "struct-error": ("import struct\nstruct.pack('i', 2 ** 40)\n", 0),
    # `raise ... from None` of another error: Python printed nothing of the entry's
    "from-none-other": ("try:\n    early_initialization()\nexcept ValueError:\n"
                        "    raise RuntimeError('wrapped') from None\n", 0),
    # `sys.stderr` a `StringIO` the program never prints: no report seen, no block anywhere
    "stderr-stringio-unread": ("import io\nsys.stderr = io.StringIO()\n" + RAISE, 0),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_round_twelve_hostile_programs_print_pythons_output_then_a_block_where_python_reported(envs, tmp_path,  # noqa: F811
                                                                                               case):
    code, expected = HOSTILE[case]
    with_hook, without = both(envs, tmp_path, code)
    found = blocks(with_hook, without)
    assert len(found) == expected and all(TITLE in block for block in found), with_hook.stderr
    assert with_hook.stderr.count("errorkb:") == expected and "errorkb/hook" not in with_hook.stderr, with_hook.stderr


@pytest.mark.parametrize("how", ["stdin-dash", "stdin-piped", "dash-c"])
def test_a_program_read_from_stdin_or_dash_c_is_named(envs, tmp_path, how):  # noqa: F811
    """Code Python reads from stdin (`<stdin>`) or `-c` (`<string>`): no source line printed; the library's frame
    confirms as ever."""
    added(envs, tmp_path, RAISE)  # writes script.py
    source = (tmp_path / "script.py").read_text(encoding="utf-8")
    if how == "dash-c":
        text = added(envs, tmp_path, None, argv=("-c", source))
    else:
        text = added(envs, tmp_path, None, argv=("-",) if how == "stdin-dash" else (), input=source)
    assert one_block(text) and TITLE in text, text


def test_a_stderr_replaced_mid_report_leaves_pythons_report_whole(envs, tmp_path):  # noqa: F811
    """A `__str__` that puts a `StringIO` in `sys.stderr` while Python prints the error: Python's printer holds the
    stream it started with; the block goes to the stream the program left there (the program's choice), never a
    traceback of the hook's own."""
    code = ("import io\nclass Moving(ValueError):\n    def __str__(self):\n        sys.stderr = io.StringIO()\n"
            "        return 'moved'\ntry:\n    early_initialization()\nexcept ValueError as error:\n"
            "    raise Moving() from error\n")
    with_hook, without = both(envs, tmp_path, code)
    assert compare(with_hook, without) == "", with_hook.stderr


@pytest.mark.parametrize("own_hook", [False, True], ids=["errorkbs-hook", "own-hook"])
def test_pythons_console_on_a_terminal_names_a_prompts_error_through_errorkbs_hook_only(envs, tmp_path,  # noqa: F811
                                                                                        own_hook):
    """`python` with no program and a terminal on stdin runs its console (no `-i`: `sys.flags` say nothing): a
    prompt's error printed through errorkb's hook gets its block there; one printed by the program's own hook (set in
    a PYTHONSTARTUP file) is no error the program ended with, and gets none at the console's end (`chains._console`,
    which no longer reads `sys.ps1` alone)."""
    import os
    import pty
    import subprocess

    added(envs, tmp_path, "")  # writes the library's stand-in and script.py (its prelude: the PYTHONSTARTUP file)
    startup = tmp_path / "script.py"
    if own_hook:
        startup.write_text(startup.read_text(encoding="utf-8") + _OWN_HOOK, encoding="utf-8")
    results = []
    for python in reversed(envs):  # (with the hook, without it)
        controller, terminal = pty.openpty()
        try:
            with subprocess.Popen([str(python)], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  cwd=tmp_path, env={**os.environ, "PYTHONSTARTUP": str(startup)}) as child:
                os.write(controller, b"early_initialization()\n\x04")
                out, err = child.communicate(timeout=120)
                results.append(subprocess.CompletedProcess(child.args, child.returncode, out.decode(), err.decode()))
        finally:
            os.close(controller)
            os.close(terminal)
    with_hook, without = results
    assert "ValueError: `head_dim`" in without.stderr and ">>> " in without.stderr, without.stderr
    found = blocks(with_hook, without)
    assert len(found) == (0 if own_hook else 1) and all(TITLE in block for block in found), with_hook.stderr
