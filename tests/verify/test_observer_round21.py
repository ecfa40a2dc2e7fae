"""Round twenty-one (red23): classes the library makes, holding the library's functions under other names.

mypy_extensions' `_TypedDictMeta.__new__` puts the library's `_dict_new` on every class the user declares as a
typed dict (`ns['__new__'] = _dict_new`), and `isinstance(x, Movie)` raises from the library's `_check_fails`
(agronholm/typeguard#453: "TypedDict does not support instance and class checks"). The observer read the snippet's
class holding a trusted function under another name as planted code ("planted C code ... (Movie.__new__)"): an
honest before failed. The fixture `typedlib` (tests/fixtures/typedlib_kb) is shaped so. A function of the target's
own put there by the library's code is the library's; the hostile twins, the snippet putting a function of the
library's under another name itself, still fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify.verifykb import library_kb, verify_library_entry

ENTRY = "typeddict-isinstance"


@pytest.fixture
def typedlib(tmp_path, monkeypatch) -> Path:
    return library_kb("typedlib", tmp_path, monkeypatch)


def _verify(root: Path, capsys, role: str | None = None, snippet: str | None = None) -> list[dict]:
    return verify_library_entry(root, "typedlib", ENTRY, capsys, role, snippet)


def test_a_class_whose_metaclass_puts_the_librarys_function_on_it_is_not_planted(typedlib, capsys):
    """Before, after and guard pass, in the sandbox; the before raised from the library's `_check_fails`, reached
    through `isinstance` with the snippet's class, which holds the library's `_dict_new` as its `__new__`. On main:
    the before failed, 'planted C code ... (Movie.__new__)'."""
    checks = _verify(typedlib, capsys)
    assert [(check["role"], check["outcome"]) for check in checks] == [
        ("before", "pass"), ("after", "pass"), ("guard:guard_keys", "pass")], [check["reason"] for check in checks]
    before = checks[0]
    assert before["exception"]["message"] == "TypedDict does not support instance and class checks", before
    assert before["exception"]["raise_site"]["function"] == "_check_fails"


_RAISE = "\n\nthing == 1\n"
HOSTILE = {
    # the library's function as `__eq__` of the snippet's own class: Python's `==` calls it, no library frame does
    "own-class": ("import typedlib\n\n\nclass Key:\n    __eq__ = typedlib._check_fails\n\n\nthing = Key()" + _RAISE),
    # put in the class body of a class the library's metaclass makes: the namespace held it as the maker began
    "class-body": ("import typedlib\nfrom typedlib import TypedDict\n\n\nclass Movie(TypedDict):\n"
                   "    __eq__ = typedlib._check_fails\n\n\nthing = dict.__new__(Movie)" + _RAISE),
    # added to the class the library made, after it made it
    "after-made": ("import typedlib\nfrom typedlib import TypedDict\n\n\nclass Movie(TypedDict):\n    name: str\n\n\n"
                   "Movie.__eq__ = typedlib._check_fails\nthing = dict.__new__(Movie)" + _RAISE),
    # replacing what the library put, after it made the class
    "replaced-new": ("import typedlib\nfrom typedlib import TypedDict\n\n\nclass Movie(TypedDict):\n    name: str\n\n\n"
                     "Movie.__new__ = typedlib._check_fails\nMovie(1)\n"),
    # written in the namespace by the snippet's own metaclass, before the library's `__new__` makes the class
    "plain-metaclass": ("import typedlib\n\n\nclass Meta(type):\n"
                        "    def __new__(mcls, name, bases, ns):\n        ns['__eq__'] = typedlib._check_fails\n"
                        "        return super().__new__(mcls, name, bases, ns)\n\n\n"
                        "class Movie(dict, metaclass=Meta):\n    name: str\n\n\nthing = dict.__new__(Movie)" + _RAISE),
    # the same, the snippet's metaclass deriving from the library's
    "own-metaclass": ("import typedlib\n\n\nclass Meta(typedlib._TypedDictMeta):\n"
                      "    def __new__(mcls, name, bases, ns):\n        ns['__eq__'] = typedlib._check_fails\n"
                      "        return super().__new__(mcls, name, bases, ns)\n\n\n"
                      "class Movie(dict, metaclass=Meta):\n    name: str\n\n\nthing = dict.__new__(Movie)" + _RAISE),
    # handed to the library's metaclass called directly, in the namespace it makes the class of
    "handed-namespace": ("import typedlib\n\nMovie = typedlib._TypedDictMeta('Movie', (), {'__eq__': "
                         "typedlib._check_fails})\nthing = dict.__new__(Movie)" + _RAISE),
}


@pytest.mark.parametrize("how", sorted(HOSTILE))
def test_the_snippet_putting_the_librarys_function_under_another_name_is_still_planted(typedlib, capsys, how):
    """The library's `_check_fails` (which raises the documented error) under another name, put there by the
    snippet's code, reached by Python's `==` (or a call of the class) with no frame of the library's calling it:
    the before fails, as planted code, however the class was made (on main too: these kept their answer; but for
    `own-metaclass`, a strict xfail until round twenty-two: its `__new__`, overriding the library's, is a declared
    callback, which switched the search at the function's own `raise` off; tests/verify/test_observer_round22.py)."""
    (check,) = _verify(typedlib, capsys, "before", HOSTILE[how])
    assert check["outcome"] == "fail", check
    assert "planted" in check["reason"], check
