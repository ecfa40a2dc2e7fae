"""Attack round thirty-four (red41): subprocess isolation's false failures, the library's own doing read as the snippet's.

In a fresh interpreter per check (`--isolation subprocess`) the library's lazily loaded modules first load while the
snippet runs. Two things they do were read as the snippet's (29 upstream checks of the real knowledge base failed
there, all passing in fork isolation):
(a) a target module's body sets an attribute on a class of Python's own (`transformers.utils.logging` sets
    `logging.Logger.warning_once`, an `lru_cache` over its own function): read as "the snippet rebound a trusted name";
(b) code compiled from a string before the snippet ran and held unrun (a `typing.ForwardRef`: torch's `nn.Module`
    annotates `_modules` with `Optional['Module']`) evaluated inside the library's call (`typing.get_type_hints`, as
    transformers' `PreTrainedModel.__init_subclass__` runs in `modeling_utils`' body): read as "the snippet ran its own
    code inside the library's call" (`<string>:1 (<module>)`).
The mend judges by identity (the frame that bound the name; the code object made before the snippet ran), never by a
name or a filename the snippet controls (`<string>` is a filename anyone can pass to `compile`). Each honest twin has
hostile ones beside it: the snippet binding the very name itself, its own `exec`'d code run inside the call, its own
`ForwardRef` evaluated there, by the call or by a body of the library's it loads.
Run as round thirty-three's (a forked process, the stream read back), watching functions of `lib/kept.py`, loaded
before the snippet; `lib/later_*.py` are the target's modules nothing loads before the snippet runs.
"""

from __future__ import annotations

import pytest

MESSAGE = "n must be positive, got -1"

KEPT = '''
import typing


class Node:
    """A class whose annotation made a `ForwardRef` as this module loaded (before the snippet): its code is compiled
    then, from a string, and held unrun."""

    parent: typing.Optional["Node"]


def _refuse(n):
    if n < 0:
        raise ValueError("n must be positive, got -1")
    return n


def log_later(n):
    """Imports a module of the target at the call, whose body binds a name on Python's `logging.Logger`."""
    import later_log

    return _refuse(n) + later_log.LEVEL


def hints_later(n):
    """Imports a module of the target at the call, whose body evaluates `Node`'s type hints."""
    import later_hints

    return _refuse(n) + len(later_hints.HINTS)


def made_later(n):
    """Imports a module of the target at the call, whose body makes a dataclass and a named tuple; makes one of each."""
    import later_made

    return _refuse(n) + later_made.Point(1, 2).x + later_made.Pair(3, 4).left


def hints(owner, n):
    """Evaluates the type hints of `owner` (the library's `get_type_hints` of a user's class)."""
    typing.get_type_hints(owner)
    return _refuse(n)


def run(hook, n):
    """Calls a hook it was handed."""
    hook()
    return _refuse(n)
'''

LATER_LOG = '''
import functools
import logging


@functools.lru_cache(None)
def warning_once(self, *args, **kwargs):
    self.warning(*args, **kwargs)


logging.Logger.warning_once = warning_once  # transformers.utils.logging's own line
LEVEL = 0
'''

LATER_HINTS = '''
import typing

import kept

HINTS = typing.get_type_hints(kept.Node)
'''

LATER_MADE = '''
import collections
import dataclasses


@dataclasses.dataclass
class Point:
    x: int
    y: int


Pair = collections.namedtuple("Pair", "left right")
'''


LIB = {"kept.py": KEPT, "later_log.py": LATER_LOG, "later_hints.py": LATER_HINTS, "later_made.py": LATER_MADE}


def _run(observe, body: str, watched: str):
    return observe(body, watched, lib=LIB)


def _refused(seen) -> None:
    """The library's own refusal, seen raised once by the watched call."""
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert seen.calls.raised[0].message == MESSAGE, seen.calls.raised


def _called_back(seen) -> list[str]:
    return [what for what in seen.interference + seen.tampered if "ran its own code inside" in what]


def _rebound(seen) -> list[str]:
    return [what for what in seen.interference + seen.tampered if "(rebound)" in what]


_CALL = "try:\n    kept.{}(-1)\nexcept ValueError:\n    pass\n"


# (a) a name the library's body binds on a class of Python's own


def test_a_library_body_binding_a_name_on_pythons_own_class_is_the_librarys(observe_kept):
    """The honest twin of `remote-model-without-generation-mixin` in subprocess isolation: the library's lazy import
    loads a module whose body sets `logging.Logger.warning_once` (an `lru_cache` over its own function); the call
    then refuses its argument. Nothing was rebound by the snippet (failed on main: "Logger.warning_once (rebound)")."""
    seen = _run(observe_kept, _CALL.format("log_later"), "log_later")
    _refused(seen)
    assert _rebound(seen) == [] and seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_a_library_body_loaded_by_the_snippet_binding_that_name_is_the_librarys(observe_kept):
    """The same body, loaded by the snippet's own import before the call: still the body's binding."""
    seen = _run(observe_kept, "import later_log\n" + _CALL.format("log_later"), "log_later")
    _refused(seen)
    assert _rebound(seen) == [], (seen.interference, seen.tampered)


_SNIPPET_BINDS = {
    # the snippet binds the very name itself, once the library's body has, to a cache over its own function or over
    # the library's (before the body, the body's own binding replaces it: nothing of the snippet's is left there)
    "own-cache": "import functools, logging, later_log\n"
                 "logging.Logger.warning_once = functools.lru_cache(None)(lambda self: 0)\n",
    "library-function-cache": "import functools, logging, later_log\n"
                              "logging.Logger.warning_once = functools.lru_cache(None)(kept._refuse)\n",
    # after the library's body bound it: the body's binding replaced by the snippet's
    "after-the-body": "import functools, logging, later_log\n"
                      "logging.Logger.warning_once = functools.lru_cache(None)(print)\n",
    # the body's very cache, moved by the snippet to another name of Python's class
    "moved": "import logging, later_log\nlogging.Logger.warning_twice = later_log.warning_once\n",
    # the snippet's own name bound before the library's body runs, left as the body found it
    "before-the-body": "import functools, logging\nlogging.Logger.critical_once = functools.lru_cache(None)(print)\n",
}


@pytest.mark.parametrize("how", sorted(_SNIPPET_BINDS))
def test_the_snippet_binding_a_name_on_pythons_own_class_is_still_rebound(observe_kept, how):
    """The hostile twins: the snippet, not the library's body, binds a name on `logging.Logger` (itself, before or
    after the body, or the body's own cache under another name): rebound, as on main."""
    seen = _run(observe_kept, _SNIPPET_BINDS[how] + _CALL.format("log_later"), "log_later")
    assert _rebound(seen) != [], (seen.interference, seen.tampered)


# (b) code compiled from a string before the snippet ran, evaluated inside the call


def test_a_forward_reference_made_before_the_snippet_evaluated_in_a_library_body_is_the_librarys(observe_kept):
    """The honest twin of every quanto / quantized-cache entry in subprocess isolation: the library's lazy import loads
    a module whose body evaluates the type hints of a class whose `ForwardRef` was made before the snippet ran (its
    code compiled then, `<string>:1 (<module>)`); the call then refuses its argument (failed on main: "ran its own
    code inside the library's call (<string>:1 (<module>))")."""
    seen = _run(observe_kept, _CALL.format("hints_later"), "hints_later")
    _refused(seen)
    assert _called_back(seen) == [] and seen.interference == [] and seen.tampered == [], \
        (seen.interference, seen.tampered)


def test_a_forward_reference_made_before_the_snippet_evaluated_by_the_call_is_the_librarys(observe_kept):
    seen = _run(observe_kept, "try:\n    kept.hints(kept.Node, -1)\nexcept ValueError:\n    pass\n", "hints")
    _refused(seen)
    assert _called_back(seen) == [], (seen.interference, seen.tampered)


def test_code_pythons_library_generates_in_a_library_body_inside_the_call_is_the_librarys(observe_kept):
    """A body loaded inside the call makes a dataclass and a named tuple (their `__init__`, `__new__` compiled from
    strings under `<string>`), and the call makes one of each: the library's, as on main."""
    seen = _run(observe_kept, _CALL.format("made_later"), "made_later")
    _refused(seen)
    assert _called_back(seen) == [] and seen.interference == [] and seen.tampered == [], \
        (seen.interference, seen.tampered)


_SNIPPET_CODE = {
    # its own forward reference (its code compiled by the snippet's class body), evaluated by the library's call
    "own-forward-reference": ("import typing\n\n\nclass Mine:\n    pass\n\n\n"
                              "Mine.__annotations__ = {'other': typing.Optional[typing.ForwardRef('Mine')]}\n",
                              "hints", "kept.hints(Mine, -1)"),
    # its own code compiled from a string under `<string>` (the name Python's generators use), run by C code
    "own-exec": ("import functools\nran = functools.partial(exec, compile('x = 1', '<string>', 'exec'), {})\n", "run",
                 "kept.run(ran, -1)"),
    # its own code compiled under `<string>` by eval, as a named tuple's
    "own-eval": ("import functools\nran = functools.partial(eval, compile('1', '<string>', 'eval'), {})\n", "run",
                 "kept.run(ran, -1)"),
    # a forward reference made before the snippet ran, its code swapped for the snippet's
    "swapped-code": ("reference = kept.Node.__annotations__['parent'].__args__[0]\n"
                     "reference.__forward_code__ = compile('Node', '<string>', 'eval')\n", "hints",
                     "kept.hints(kept.Node, -1)"),
}


@pytest.mark.parametrize("how", sorted(_SNIPPET_CODE))
def test_the_snippets_own_string_code_run_inside_the_call_is_still_its_own(observe_kept, how):
    """The hostile twins: code the snippet compiled from a string (a forward reference of its own, `exec` or `eval`
    of `<string>` code, a forward reference of the library's with its code swapped) run inside the library's call,
    with no frame of the snippet's file: its own code run inside the call, as on main."""
    setup, watched, call = _SNIPPET_CODE[how]
    seen = _run(observe_kept, setup + f"try:\n    {call}\nexcept ValueError:\n    pass\n", watched)
    assert _called_back(seen) != [], (seen.interference, seen.tampered)


def test_the_snippets_forward_reference_a_library_body_evaluates_is_still_its_own(observe_kept):
    """The hostile twin of (b)'s honest case: the snippet puts a forward reference of its own in the library's class,
    and the library's body, loaded inside the call, evaluates it: the snippet's code run inside the call."""
    setup = "import typing\n\n\nclass Mine:\n    pass\n\n\nkept.Node.__annotations__['parent'] = " \
            "typing.Optional['Mine']\nkept.Mine = Mine\n"
    seen = _run(observe_kept, setup + _CALL.format("hints_later"), "hints_later")
    assert _called_back(seen) != [], (seen.interference, seen.tampered)


_STRING_ANNOTATIONS = {
    # a string annotation of the snippet's class, evaluated by the library's call
    "by-the-call": ("class Mine:\n    pass\n\n\nMine.__annotations__ = {'other': 'int'}\n", "hints",
                    "kept.hints(Mine, -1)"),
    # a string the snippet put in the library's class, evaluated by the library's body it loads inside the call
    "by-a-library-body": ("kept.Node.__annotations__['parent'] = 'int'\n", "hints_later",
                          "kept.hints_later(-1)"),
}


@pytest.mark.parametrize("how", sorted(_STRING_ANNOTATIONS))
def test_the_snippets_string_the_library_compiles_inside_the_call_is_its_own(observe_kept, how):
    """The snippet's own expression, handed to the library as a string annotation, that the library compiles and
    evaluates inside the call (in the call's frames, or in a body of its own the call loads): its own code run inside
    the call (a strict xfail on main, a false pass: who chose a source was not seen, only who compiled it; round
    thirty-six, `_p_snippet_chose`)."""
    setup, watched, call = _STRING_ANNOTATIONS[how]
    seen = _run(observe_kept, setup + f"try:\n    {call}\nexcept ValueError:\n    pass\n", watched)
    assert _called_back(seen) != [], (seen.interference, seen.tampered)
