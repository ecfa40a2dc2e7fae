"""Round twenty-two (red24): a declared callback switched off the planted search at the function's own `raise`.

Round twenty-one's `own-metaclass` twin (the snippet's metaclass, deriving from the library's, writes the library's
`_check_fails` into the namespace as `__eq__`, then calls the library's `__new__`) passed its before: Python's `==`
called the library's function with no frame of the library's calling it. Traced: not the maker's rule (the namespace
held `__eq__` as the library's `__new__` began, so nothing was read as the library's put). The snippet's `__new__`,
overriding a method in a subclass of the library's, is a `callback` to the allow-list; a check whose entry declares
one (`allow: callback`, or `source.user_code`) skipped the whole search of what the snippet handed the call at the
function's own `raise` ("the snippet's own code may steer the call there anyway"). But a declared callback is the
snippet's own code, seen where it runs and read by the reviewer; C code, or a trusted function under another name,
that the snippet planted on what it handed the call runs with no frame, declared or not. The class: any check with a
callback declared, whatever the callback does, and however the planted code got there. The search now runs at every
`raise` of the function's own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify.test_observer_round21 import HOSTILE, _verify

# A callback the allow-list records (a method of the snippet's, overriding one in a subclass of the library's class),
# which plays no part in reaching the function: the entry now declares `allow: callback`.
_DECLARED = ("\n\nclass Quiet(typedlib._TypedDictMeta):\n    def __repr__(cls):\n        return 'quiet'\n")


@pytest.fixture
def typedlib(tmp_path, monkeypatch) -> Path:
    from tests.verify.verifykb import library_kb

    return library_kb("typedlib", tmp_path, monkeypatch)


def _with_callback(snippet: str) -> str:
    head, _, rest = snippet.partition("\n")
    assert head == "import typedlib", snippet
    return head + "\n" + _DECLARED + rest


@pytest.mark.parametrize("how", sorted(HOSTILE))
def test_a_declared_callback_does_not_let_planted_code_through(typedlib, capsys, how):
    """Each of round twenty-one's hostile befores, with a callback declared that plays no part: still planted. On
    main: all but `replaced-new` (whose error starts in C code, searched anyway) passed."""
    from errorkb.core.lint import lint_source

    snippet = _with_callback(HOSTILE[how])
    assert "callback" in {finding.primitive for finding in lint_source(snippet, None, ("typedlib",))}
    (check,) = _verify(typedlib, capsys, "before", snippet)
    assert check["outcome"] == "fail" and "planted" in check["reason"], (check["outcome"], check["reason"])


def test_the_honest_before_with_a_callback_declared_still_passes(typedlib, capsys):
    """The honest twin: the fixture's before (its class holding the library's `_dict_new`, put there by the library's
    metaclass), with the same callback declared: the search now runs there, and still passes it."""
    honest = (typedlib / "snippets" / "typeddict-isinstance" / "before.py").read_text()
    snippet = "import typedlib\n" + _DECLARED + "\n" + honest
    (check,) = _verify(typedlib, capsys, "before", snippet)
    assert check["outcome"] == "pass", (check["outcome"], check["reason"])
    assert check["exception"]["raise_site"]["function"] == "_check_fails", check


# The siblings: other ways the snippet's code puts the library's function in a namespace a class is made of, or has
# trusted code make the class from one it chose.
SIBLINGS = {
    # `types.new_class` with the snippet's exec_body writing the namespace the library's metaclass is handed
    "new-class": ("import types\n\nimport typedlib\n\n\ndef body(ns):\n    ns['__eq__'] = typedlib._check_fails\n\n\n"
                  "Movie = types.new_class('Movie', (typedlib.TypedDict,), {}, body)\nthing = dict.__new__(Movie)"
                  "\n\nthing == 1\n"),
    # `copy` rebuilding an object by what its `__reduce__` chose: the library's metaclass, with a namespace of the
    # snippet's, called from Python's own `copy._reconstruct`
    "reduce": ("import copy\n\nimport typedlib\n\n\nclass Recipe:\n    def __reduce__(self):\n"
               "        return (typedlib._TypedDictMeta, ('Movie', (), {'__eq__': typedlib._check_fails}))\n\n\n"
               "Movie = copy.copy(Recipe())\nthing = dict.__new__(Movie)\n\nthing == 1\n"),
    # a descriptor of the snippet's whose `__set_name__` writes the class while the library's metaclass makes it
    "set-name": ("import typedlib\nfrom typedlib import TypedDict\n\n\nclass Planter:\n"
                 "    def __set_name__(self, owner, name):\n        setattr(owner, '__eq__', typedlib._check_fails)\n\n\n"
                 "class Movie(TypedDict):\n    name = Planter()\n\n\nthing = dict.__new__(Movie)\n\nthing == 1\n"),
    # `__class_getitem__` of the snippet's making the class through the library's metaclass, namespace its own
    "class-getitem": ("import typedlib\n\n\nclass Factory:\n    def __class_getitem__(cls, name):\n"
                      "        return typedlib._TypedDictMeta(name, (), {'__eq__': typedlib._check_fails})\n\n\n"
                      "Movie = Factory['Movie']\nthing = dict.__new__(Movie)\n\nthing == 1\n"),
}


@pytest.mark.parametrize("declared", [False, True], ids=["plain", "callback-declared"])
@pytest.mark.parametrize("how", sorted(SIBLINGS))
def test_the_siblings_are_planted_too(typedlib, capsys, how, declared):
    """The library's `_check_fails` put under `__eq__` by the snippet's code however the class was made (an exec_body,
    a reducer's recipe, a `__set_name__` run inside the library's `__new__`, a `__class_getitem__`), with a callback
    declared or not: planted. On main: each with a callback declared passed, and `class-getitem` without one (its
    `__class_getitem__` is a callback to the allow-list)."""
    snippet = SIBLINGS[how]
    if declared:
        snippet = snippet.replace("import typedlib\n", "import typedlib\n" + _DECLARED, 1)
    (check,) = _verify(typedlib, capsys, "before", snippet)
    assert check["outcome"] == "fail" and "planted" in check["reason"], (check["outcome"], check["reason"])
