"""Round thirty-two (red34): the text of a library's error derived from OSError, made by the library's own `__str__`.

jinja2's `TemplateNotFound` derives from `OSError` (IOError); the observer ran a library's own `__str__` only for an
exception whose built-in bases hold nothing but `args` and `__dict__`, so its text was unread and an honest before
failed "message differs" (`tests/test_own_library_round6.py::test_jinja_the_before_verifies`, a strict xfail until
now). OSError's C fields (errno, strerror, filename, filename2), which `OSError.__init__` fills from 2 to 5 arguments
and its C `__str__` formats (errno by `str`, a filename by `repr`), are now data the check reads: plain (None, an
exact int, str, bytes) or the text stays unread. The hostile twins: a filename of the snippet's (its `__repr__`,
`__str__`, `__fspath__` its own code), a `str` subclass as the filename, a strerror of the snippet's, an `int`
subclass as the errno, the snippet's subclass of the library's error (or of OSError) with its own `__str__`, the
library's `__str__` patched. Run as `tests/verify/test_observer_round30.py` runs its scenarios.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.verify.test_observer import read, run_scenario
from tests.verify.test_observer_round12 import watch_in

OSLIB = '''
class LoadError(OSError):
    """The library's error: OSError's fields from three arguments; its own `__str__` formats them (OSError's C one)."""

    def __init__(self, code, reason, path, *more):
        super().__init__(code, reason, path, *more)

    def __str__(self):
        return "cannot load: " + OSError.__str__(self)


class Missing(FileNotFoundError, LookupError):
    """jinja2's shape: a Python subclass of a built-in OSError subclass whose `__str__` returns its message."""

    def __init__(self, name, message):
        FileNotFoundError.__init__(self, name)
        self.message = message

    def __str__(self):
        return str(self.message)


def load(path):
    raise LoadError(2, "no such template", path)


def load_as(error, code, reason, path, *more):
    raise error(code, reason, path, *more)


def find(name):
    raise Missing(name, f"{name!r} not found in search path: 'templates'")
'''
LOADED = "cannot load: [Errno 2] no such template: 'index.html'"
FOUND = "'index.html' not found in search path: 'templates'"


def _run(tmp_path: Path, body: str, watched: str = "load"):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "oslib.py").write_text(OSLIB)
    seen = read(run_scenario(tmp_path, "import oslib\n" + textwrap.dedent(body),
                             configure=watch_in("oslib", watched))).observation
    assert seen is not None, seen
    return seen


def _messages(seen) -> list:
    return [error.message for error in seen.calls.raised]


def _unread(seen) -> bool:
    """Raised once, its text not read (nor the snippet's words taken for it)."""
    said = _messages(seen)
    return len(said) == 1 and "could not be read" in str(said[0]) and "index.html" not in str(said[0])


def test_the_text_of_a_librarys_oserror_made_by_its_own_str_is_read(tmp_path):
    """The honest case: on main the message was unread ("could not be read")."""
    seen = _run(tmp_path, 'oslib.load("index.html")\n')
    assert _messages(seen) == [LOADED] and seen.tampered == [] and seen.interference == [], seen


def test_the_text_of_a_librarys_subclass_of_a_builtin_oserror_subclass_is_read(tmp_path):
    """jinja2's `TemplateNotFound` shape (a built-in OSError subclass and LookupError beneath the library's class)."""
    seen = _run(tmp_path, 'oslib.find("index.html")\n', "find")
    assert _messages(seen) == [FOUND] and seen.tampered == [] and seen.interference == [], seen


_NAME_METHODS = ("    def __repr__(self):\n        return \"'index.html'\"\n\n"
                 "    def __str__(self):\n        return 'index.html'\n\n"
                 "    def __fspath__(self):\n        return 'index.html'\n")
HOSTILE = {
    # the filename an object of the snippet's: OSError's `__str__` formats it by its `repr`, the snippet's code
    "filename-object": "class Name:\n" + _NAME_METHODS + "\n\noslib.load(Name())\n",
    # the second filename (OSError's fifth argument; the fourth is Windows' error code) an object of the snippet's
    "filename2-object": "class Name:\n" + _NAME_METHODS + "\n\noslib.load_as(oslib.LoadError, 2, 'no such template', "
                        "'index.html', 0, Name())\n",
    # a subclass of `str` of the snippet's as the filename: its own `__repr__`
    "filename-str-subclass": "class Name(str):\n" + _NAME_METHODS + "\n\noslib.load(Name('other.html'))\n",
    # the strerror an object of the snippet's: formatted by its `__str__`
    "strerror-object": "class Reason:\n    def __str__(self):\n        return 'no such template'\n\n\n"
                       "oslib.load_as(oslib.LoadError, 2, Reason(), 'index.html')\n",
    # the errno a subclass of `int` of the snippet's: formatted by its `__str__`
    "errno-int-subclass": "class Code(int):\n    def __str__(self):\n        return '2'\n\n    __repr__ = __str__\n"
                          "\n\noslib.load_as(oslib.LoadError, Code(5), 'no such template', 'index.html')\n",
    # the snippet's subclass of the library's error, its `__str__` the snippet's code
    "library-subclass-own-str": "class Loud(oslib.LoadError):\n    def __str__(self):\n        return "
                                + repr(LOADED) + "\n\n\noslib.load_as(Loud, 2, 'no such template', 'other.html')\n",
    # a subclass of OSError of the snippet's own, its `__str__` the snippet's code
    "oserror-subclass-own-str": "class Loud(OSError):\n    def __str__(self):\n        return " + repr(LOADED)
                                + "\n\n\noslib.load_as(Loud, 2, 'no such template', 'other.html')\n",
    # the library's error class patched: its `__str__` is the snippet's function
    "library-str-patched": "def words(self):\n    return " + repr(LOADED) + "\n\n\noslib.LoadError.__str__ = words\n"
                           "oslib.load('other.html')\n",
}


@pytest.mark.parametrize("how", sorted(HOSTILE))
def test_the_snippets_code_choosing_an_oserrors_words_is_never_read_as_the_librarys(tmp_path, how):
    """Each way the snippet's code would choose the words: the text stays unread (or the tampering is said)."""
    seen = _run(tmp_path, HOSTILE[how], "load_as" if "load_as" in HOSTILE[how] else "load")
    said = _messages(seen)
    assert _unread(seen) or (seen.tampered and LOADED not in said), (said, seen.tampered, seen.interference)
