"""Attack round thirty-five (red42): the last subprocess-isolation false failure, a body of Python's own library.

In a fresh interpreter per check (`--isolation subprocess`) a module of Python's own library may first load inside the
library's call: `concurrent.futures.thread`'s body registers `functools.partial(_python_exit)` in
`threading._threading_atexits` (through `threading._register_atexit`), a table the observer took before the snippet
ran. The partial, made while the snippet ran, over a function of a trusted file, was read as "planted C code ...
partial (holding C code it calls)" (`torch-onnx-legacy-export-dynamic-cache::before[upstream-cpu]`, passing in fork
isolation). The mend follows the runtime's own module bodies as the target's are (`_p_follow_runtime_body`) and reads
a partial a table gained over a function of that very body, made while no code of the snippet's ran, as the
runtime's own (`_p_runtime_binders`): by identity (the function object and its namespace, the frames that ran), never
by a name or a file the snippet controls. The hostile twins register into the same table themselves, import a module
of their own that does, or run their code while the runtime's body runs.
Run as round thirty-four's: `std/` stands for Python's own library (under the check's stdlib and trusted roots, on
the path), its modules loaded by nothing before the snippet runs; `lib/kept.py` holds the watched functions.
"""

from __future__ import annotations

import pytest

MESSAGE = "n must be positive, got -1"

KEPT = '''
def _refuse(n):
    if n < 0:
        raise ValueError("n must be positive, got -1")
    return n


def exit_later(n):
    """Imports a module of Python's own library at the call, whose body registers an exit hook of its own."""
    import runtime_exit

    return _refuse(n) + runtime_exit.LEVEL


def finder_later(n):
    """Imports a module of Python's own library at the call, whose body imports another before registering."""
    import runtime_finder

    return _refuse(n) + runtime_finder.LEVEL


def exit_mine(n):
    """Imports the snippet's own module at the call."""
    import snippet_exit

    return _refuse(n) + snippet_exit.LEVEL
'''

# `concurrent.futures.thread`'s own lines: a function of its own, registered (as a partial) through `threading`
RUNTIME_EXIT = '''
import threading


def _python_exit():
    pass


threading._register_atexit(_python_exit)
LEVEL = 0
'''

# the same, importing a module first: where the snippet's finder runs, inside the body
RUNTIME_FINDER = '''
import threading


def _python_exit():
    pass


import runtime_missing_module_red42  # noqa: E402,F401

threading._register_atexit(_python_exit)
LEVEL = 0
'''

# the snippet's own module registering as the runtime's body does, in its own folder: a function of Python's own
# under the body's name (its own function would be its code, followed where it runs)
SNIPPET_EXIT = '''
import threading
from textwrap import dedent as _python_exit

threading._register_atexit(_python_exit)
LEVEL = 0
'''


def _run(observe, body: str, watched: str):
    return observe(body, watched, lib={"kept.py": KEPT},
                   std={"runtime_exit.py": RUNTIME_EXIT, "runtime_finder.py": RUNTIME_FINDER},
                   mine={"snippet_exit.py": SNIPPET_EXIT})


def _refused(seen) -> None:
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert seen.calls.raised[0].message == MESSAGE, seen.calls.raised


def _planted(seen) -> list[str]:
    return [what for what in seen.interference + seen.tampered if "planted" in what or "partial" in what]


_CALL = "try:\n    kept.{}(-1)\nexcept ValueError:\n    pass\n"


def test_a_runtime_body_loaded_in_the_call_registering_its_own_exit_hook_is_the_runtimes(observe_kept):
    """The honest twin of `torch-onnx-legacy-export-dynamic-cache` in subprocess isolation: a module of Python's own
    library first loads inside the library's call, its body registering `partial(_python_exit)` in
    `threading._threading_atexits`; the call then refuses its argument. Nothing was planted."""
    seen = _run(observe_kept, _CALL.format("exit_later"), "exit_later")
    _refused(seen)
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_a_runtime_body_loaded_by_the_snippet_registering_its_own_exit_hook_is_the_runtimes(observe_kept):
    """The same body, loaded by the snippet's own import before the call: still the runtime's registration."""
    seen = _run(observe_kept, "import runtime_exit\n" + _CALL.format("exit_later"), "exit_later")
    _refused(seen)
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


_SNIPPET_REGISTERS = {
    # the snippet registers a partial over a function of Python's own (its error the snippet's choice), or over C
    # code binding its data (a partial over its own function is its code, followed where it runs: not this)
    "runtime-function": "import textwrap, threading\nthreading._register_atexit(textwrap.dedent)\n",
    "c-code": "import threading\nthreading._register_atexit(print, 'planted')\n",
    # the runtime body's very function, registered again by the snippet once the body ran (no data: as the body's)
    "runtime-body-function": "import threading, runtime_exit\nthreading._register_atexit(runtime_exit._python_exit)\n",
    # over the runtime body's very function, binding data of its own, once the body ran
    "runtime-function-data": "import threading, runtime_exit\n"
                             "threading._register_atexit(runtime_exit._python_exit, ValueError('planted'))\n",
    # the snippet's own module, in its own folder, whose body does what the runtime's does
    "own-module": "import snippet_exit\n",
}


@pytest.mark.parametrize("how", sorted(_SNIPPET_REGISTERS))
def test_the_snippet_registering_in_the_runtimes_table_is_still_planted(observe_kept, how):
    """The hostile twins: the snippet, not the runtime's body, registers in `threading._threading_atexits` (a partial
    over a function of Python's own, over C code, over the runtime body's own function again, over the runtime's function binding its own data, or through a module of its
    own): planted, as on main."""
    seen = _run(observe_kept, _SNIPPET_REGISTERS[how] + _CALL.format("exit_later"), "exit_later")
    assert _planted(seen) != [], (seen.interference, seen.tampered)


def test_the_snippets_module_registering_inside_the_call_is_still_planted(observe_kept):
    """The snippet's own module, first imported inside the library's call, registering as the runtime's body does."""
    seen = _run(observe_kept, _CALL.format("exit_mine"), "exit_mine")
    assert _planted(seen) != [], (seen.interference, seen.tampered)


FINDER = '''
import importlib.abc, importlib.machinery, sys, threading


class Finder(importlib.abc.MetaPathFinder):
    """Runs while the runtime's body imports: registers a partial over the body's own function, now bound."""

    def find_spec(self, name, path=None, target=None):
        if name == "runtime_missing_module_red42":
            space = sys.modules["runtime_finder"].__dict__
            threading._register_atexit(space["_python_exit"])
            return importlib.machinery.ModuleSpec(name, None)
        return None


sys.meta_path.insert(0, Finder())
'''


def test_the_snippets_code_run_inside_the_runtimes_body_leaves_its_registration_planted(observe_kept):
    """The snippet's code runs while the runtime's body runs (its import finder), registering a partial over the
    body's own function as the body would: the body is no longer the runtime's alone, so nothing it left is read as
    the runtime's own; the finder's partial is still searched."""
    seen = _run(observe_kept, FINDER + _CALL.format("finder_later"), "finder_later")
    assert _planted(seen) != [], (seen.interference, seen.tampered)
