"""Round twenty (red21): a library whose exceptions make their message in Python, as PyYAML's do.

PyYAML's `ConstructorError` is a `MarkedYAMLError`, whose `__str__` (Python, the library's own) joins the problem
with `str(problem_mark)`, a `Mark` whose own `__str__` formats the file, line and column (yaml/pyyaml#830: "could
not determine a constructor for the tag ..."). The observer read an exception's text only where C code alone makes
it, so a newcomer's PyYAML knowledge base could not be verified: every before failed, "the ConstructorError's text
could not be read when it was raised without running code of its own". The fixture `marklib` (tests/fixtures/
marklib_kb) is shaped so. The library's own `__str__`, found on the library's class, over data that holds nothing of
the snippet's but plain values (strings, numbers) and the library's own objects, is now run to read the text; the
hostile twins still fail, saying why: the snippet's subclass overriding `__str__`, the snippet's object that the
library's `__str__` formats (its own `__str__` would choose the words), the library's class patched by the snippet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.verify.verifykb import library_kb, verify_library_entry

ENTRY = "undefined-tag"


@pytest.fixture
def marklib(tmp_path, monkeypatch) -> Path:
    return library_kb("marklib", tmp_path, monkeypatch)


def _verify(root: Path, capsys, role: str | None = None, snippet: str | None = None) -> list[dict]:
    return verify_library_entry(root, "marklib", ENTRY, capsys, role, snippet)


def test_a_message_the_librarys_own_str_makes_is_read_and_the_entry_verifies(marklib, capsys):
    """Before, after and guard pass, in the sandbox; the before's text is the library's `__str__`'s, read when it
    was raised. On main: the before failed, 'could not be read ... without running code of its own'."""
    checks = _verify(marklib, capsys)
    assert [(check["role"], check["outcome"]) for check in checks] == [
        ("before", "pass"), ("after", "pass"), ("guard:guard_untagged", "pass")], [check["reason"] for check in checks]
    before = checks[0]
    assert before["exception"]["message"] == ("could not determine a constructor for the tag '!point' in "
                                              '"config.txt", line 2, column 7'), before["exception"]
    assert before["exception"]["raise_site"]["function"] == "Constructor.construct"


_LOAD = 'load("name: demo\\nsize: !point 3 4\\n", "config.txt")\n'
_WORDS = "could not determine a constructor for the tag '!point' in \"config.txt\", line 2, column 7"
HOSTILE = {
    # an object of the snippet's as the file's name: `Mark.__str__` formats it with `%s`, running its `__str__`
    "name-object": ("from marklib import load\n\n\nclass Name:\n    def __str__(self):\n        return 'config.txt'\n"
                    "\n\nload(\"name: demo\\nsize: !point 3 4\\n\", Name())\n"),
    # a subclass of `str` of the snippet's as the name: `%s` of it is its own `__str__`
    "name-str-subclass": ("from marklib import load\n\n\nclass Name(str):\n    def __str__(self):\n"
                          "        return 'config.txt'\n\n\nload(\"name: demo\\nsize: !point 3 4\\n\", Name('x'))\n"),
    # the library's error class patched: its `__str__` is the snippet's function
    "error-str-patched": ("import marklib\nfrom marklib import load\n\n\ndef words(self):\n    return " + repr(_WORDS)
                          + "\n\n\nmarklib.MarkedError.__str__ = words\n" + _LOAD.replace("config.txt", "other.txt")),
    # the library's mark class patched with C code answering the snippet's words (no frame of its own runs)
    "mark-str-planted": ("import marklib\nfrom marklib import load\n\nmarklib.Mark.__str__ = "
                         + repr('in "config.txt", line 2, column 7') + ".__str__\n"
                         + _LOAD.replace("config.txt", "other.txt")),
    # the library's module's name rebound: `Mark` made by the snippet's class
    "mark-rebound": ("import marklib.constructor\nfrom marklib import load\n\n\nclass Mark:\n"
                     "    def __init__(self, *args):\n        pass\n\n    def __str__(self):\n"
                     "        return " + repr('in "config.txt", line 2, column 7') + "\n\n\n"
                     "marklib.constructor.Mark = Mark\n" + _LOAD.replace("config.txt", "other.txt")),
}
SUBCLASS = ("from marklib import Constructor, ConstructorError\n\n\nclass Loud(ConstructorError):\n"
            "    def __str__(self):\n        return " + repr(_WORDS) + "\n\n\nclass Strict(Constructor):\n"
            "    error = Loud\n\n\nStrict('other.txt').construct(\"name: demo\\nsize: !point 3 4\\n\")\n")


@pytest.mark.parametrize("how", sorted(HOSTILE))
def test_the_snippets_code_choosing_the_words_is_never_read_as_the_librarys(marklib, capsys, how):
    """Each way the snippet's code would choose the words the library's `__str__` returns: the before fails, its
    text unread ('could not be read ... without running code of its own') or its tampering said."""
    (check,) = _verify(marklib, capsys, "before", HOSTILE[how])
    assert check["outcome"] == "fail", check
    assert "could not be read" in check["reason"] or "tamper" in check["code"] or "planted" in check["reason"], check


def test_a_subclass_of_the_snippets_overriding_str_is_not_the_librarys_error(marklib, capsys):
    """The library raises the snippet's subclass (its constructor's `error` class attribute, set by the snippet's
    subclass of the constructor), whose `__str__` says the documented words: not the library's class, and its text
    is not read (it would run the snippet's `__str__`)."""
    (check,) = _verify(marklib, capsys, "before", SUBCLASS)
    assert (check["outcome"], check["code"]) == ("fail", "wrong-exception"), check


def test_an_honest_before_raising_while_the_snippet_handles_its_own_error_still_passes(marklib, capsys):
    """The twin: the library's error raised while the snippet handles an exception of its own class (the interpreter
    sets it as the library's error's context): the library's `__str__` never reads it, and the before passes."""
    before = ("from marklib import load\n\n\nclass Retry(Exception):\n    pass\n\n\ntry:\n"
              "    raise Retry('first')\nexcept Retry:\n    " + _LOAD)
    (check,) = _verify(marklib, capsys, "before", before)
    assert (check["outcome"], check["reason"]) == ("pass", "raised ConstructorError from Constructor.construct (line 23)")
