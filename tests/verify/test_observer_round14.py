"""Round fourteen (red15): what the library's own import does while the snippet runs is the library's.

Found at stop 49: in `--isolation subprocess` (a fresh interpreter, where the snippet's own imports load most of the
library) six honest upstream checks of the real knowledge base read as tampered: "the snippet replaced
sys.modules['transformers']; planted C code where GenerationMixin._sample calls it (_lru_cache_wrapper (holding C code
it calls))". Fork isolation, whose zygote had loaded those modules before the snippet, passed them. Two misreadings:

- transformers' `processing_utils`, imported for the first time, runs the package's `__init__` again
  (`direct_transformers_import`), whose last lines put a new `_LazyModule` in `sys.modules['transformers']`: the
  library's own code replacing its own entry, read as the snippet's replacement;
- a bounded `functools.lru_cache` wrapper (typing's `_tp_cache`, reached from the containers of the modules those imports
  loaded; or any cache the function reads) lists its cached keys and results among what it holds. It calls none of
  them (it returns them): only its function. Its cached `typing.Literal[...]` aliases, callable objects of Python's
  that reach Python's own functions, were read as C code it calls.

The stand-in library (`lib/stand/`) does both, small: a package whose body replaces its own entry with a lazy module
of its own class, a module that runs that body again at its import, and a function reading a bounded cache of typing
aliases. The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back), in
the two ways a check meets the library: with everything loaded before the snippet (as a fork zygote has it) and with
the snippet's own import loading it (as a fresh interpreter has it). The hostile twins, the snippet doing the same
thing by itself, fail closed in both.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import types
from pathlib import Path

import pytest

from tests.verify.test_observer import read, run_scenario

INIT = '''
"""A package that replaces its own entry in the module table with a lazy module of its own class, every time its
body runs (transformers' `__init__` does)."""
import sys

from stand._lazy import Lazy

sys.modules[__name__] = Lazy(__name__, __file__)
'''

LAZY = '''
import importlib
import importlib.util
import os
import sys
import types


class Lazy(types.ModuleType):
    """The package's lazy module: submodules load on first access."""

    def __init__(self, name, file):
        super().__init__(name)
        self.__file__ = file
        self.__path__ = [os.path.dirname(file)]

    def __getattr__(self, name):
        return importlib.import_module("." + name, self.__name__)


def direct_import(path):
    """Runs the package's `__init__` again, as transformers' `direct_transformers_import` does."""
    spec = importlib.util.spec_from_file_location("stand", os.path.join(path, "__init__.py"),
                                                  submodule_search_locations=[path])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return sys.modules["stand"]
'''

EXTRA = '''
"""A module whose import runs the package's body again (transformers' `processing_utils`)."""
import os

from stand._lazy import direct_import

package = direct_import(os.path.dirname(__file__))
'''

WORK = '''
import functools
import typing


@functools.lru_cache(maxsize=8)
def kind(name):
    """A bounded cache whose results are callable objects of Python's (typing's aliases, which reach its functions)."""
    return typing.Literal[name]


def parse(text):
    """Reads the cache, then C code fails on what it was handed (no `raise` of its own: the planted search runs)."""
    kind(text)
    return int(text)


def cached_call(text):
    """Calls what its cache returns for the text."""
    return _cached(text)(text)


@functools.lru_cache(maxsize=8)
def _cached(text):
    return _CHOSEN[0]


_CHOSEN = [int]
'''

MODES = ["loaded-before", "loaded-by-the-snippet"]


def _stand(tmp_path: Path) -> None:
    folder = tmp_path / "lib" / "stand"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in (("__init__.py", INIT), ("_lazy.py", LAZY), ("extra.py", EXTRA), ("work.py", WORK)):
        (folder / name).write_text(textwrap.dedent(text))


def _watch(name: str, mode: str):
    """Watch `stand.work.<name>` and hold `sys.modules['stand']` as the check's set-up found it; `loaded-before`
    imports `stand.extra` (whose import runs the package's body again) before the snippet, as a zygote's preloads
    do."""

    from tests.verify.test_observer_round12 import watch_in

    def configure(config: dict) -> None:
        if mode == "loaded-before":
            importlib.import_module("stand.extra")
        watch_in("stand.work", name, beneath=True)(config)
        config["sys_modules"] = [(held, sys.modules[held]) for held in ("stand", "stand.work")]
        package = sys.modules["stand"]  # its namespace, as `child._spaces` holds the library's (a lazy one grows)
        config["spaces"] = [("stand", package, dict(vars(package)), type(package) is not types.ModuleType, frozenset())]
        # Python's library as `child.python_roots` has it: its frozen modules too (the import system's)
        config["trusted_roots"] = (*config["trusted_roots"], "<frozen ")
        config["stdlib_roots"] = [*config["stdlib_roots"], "<frozen "]

    return configure


def _run(tmp_path: Path, body: str, name: str, mode: str):
    _stand(tmp_path)
    return read(run_scenario(tmp_path, textwrap.dedent(body), configure=_watch(name, mode))).observation


def _said(seen) -> list[str]:
    return [*seen.tampered, *seen.interference]


@pytest.mark.parametrize("mode", MODES)
def test_the_library_replacing_its_own_module_entry_at_its_import_is_not_the_snippet(tmp_path, mode):
    """The honest check: the snippet imports a module of the library whose import runs the package's body again
    (a new lazy module in the package's entry), then the function fails in C code on the data it was handed. The
    error is the library's, nothing was tampered with (on main, loaded by the snippet: "replaced
    sys.modules['stand']"; in both ways: "_lru_cache_wrapper (holding C code it calls)")."""
    body = """
    import stand.extra
    import stand.work

    stand.work.parse("x")
    """
    seen = _run(tmp_path, body, "parse", mode)
    assert seen is not None and seen.exception is not None and seen.exception.type == "ValueError", seen
    assert seen.exception.started is not None and seen.exception.started.function == "parse", seen.exception
    assert _said(seen) == [], _said(seen)


@pytest.mark.parametrize("mode", MODES)
def test_the_snippet_replacing_the_librarys_module_entry_itself_is_tampering(tmp_path, mode):
    """The hostile twin: the snippet puts a module of its own in the package's entry (after the library's import
    did, where it does)."""
    body = """
    import sys
    import types
    import stand.extra
    import stand.work

    sys.modules["stand"] = types.ModuleType("stand")
    stand.work.parse("1")
    """
    seen = _run(tmp_path, body, "parse", mode)
    assert seen is not None and "sys.modules['stand']" in seen.tampered, _said(seen)


# The snippet's `Lazy`, which the library's body builds its entry from: a class made by C code alone (no function of
# its own: nothing of the snippet's runs while the body does), or one whose `__init__` is the snippet's (its code runs
# while the body does).
SNIPPET_LAZY = {
    "made-by-c-code": """
    Lazy = type("Lazy", (types.ModuleType,), {"__module__": "stand._lazy"})
    """,
    "its-init-the-snippets": """
    class Lazy(types.ModuleType):
        def __init__(self, name, file):
            super().__init__(name)
    """,
}


@pytest.mark.parametrize("lazy", SNIPPET_LAZY)
@pytest.mark.parametrize("mode", MODES)
def test_the_library_body_building_its_entry_from_a_class_of_the_snippets_is_tampering(tmp_path, mode, lazy):
    """The body is the library's, but the class it builds its entry from is the snippet's: the entry is the snippet's,
    whether code of the snippet's runs while the body does or none does."""
    body = textwrap.dedent("""
    import os
    import types
    import stand._lazy
    import stand.work
    """) + textwrap.dedent(SNIPPET_LAZY[lazy]) + textwrap.dedent("""
    stand._lazy.Lazy = Lazy
    stand._lazy.direct_import(os.path.dirname(stand._lazy.__file__))
    stand.work.parse("1")
    """)
    seen = _run(tmp_path, body, "parse", mode)
    assert seen is not None and "sys.modules['stand']" in seen.tampered, _said(seen)


@pytest.mark.parametrize("mode", MODES)
def test_c_code_a_cache_returns_and_the_function_calls_is_still_planted(tmp_path, mode):
    """A cache's results are data it returns, not what it calls, and are searched as such: the snippet's partial
    (binding data to Python's `int`), put where the cache's function finds it and cached, is planted C code when the
    watched function calls what the cache returned."""
    body = """
    import functools
    import stand.work

    stand.work._CHOSEN[0] = functools.partial(int, "not a number")
    stand.work._cached("x")
    stand.work._CHOSEN[0] = int
    stand.work.cached_call("x")
    """
    seen = _run(tmp_path, body, "cached_call", mode)
    assert seen is not None and seen.exception is not None and seen.exception.type == "TypeError", seen
    assert any("planted" in what for what in _said(seen)), _said(seen)


@pytest.mark.parametrize("mode", MODES)
def test_a_name_replaced_in_the_module_the_librarys_import_put_in_its_entry_is_tampering(tmp_path, mode):
    """Once the library's own import put its new lazy module in the package's entry, that module is the one held: a
    name of it the snippet then replaces is seen at the end, as on the module held before."""
    body = """
    import stand.extra
    import stand.work
    import sys

    sys.modules["stand"].__file__ = "elsewhere"
    stand.work.parse("1")
    """
    seen = _run(tmp_path, body, "parse", mode)
    assert seen is not None and any(what.startswith("stand.__file__") for what in seen.tampered), _said(seen)


# Issue 22: a zygote's later copy (after each module it prepares) walked every object for binders again; now only what
# was made since its last freeze, when that freeze was its own (`observer.freeze_walked`). Run in a process of its own
# (it freezes).
_LATER_COPY = """
import gc
import sysconfig
from errorkb.verify.inside import observer

roots = (sysconfig.get_paths()["stdlib"] + "/",)
observer.snapshot_trusted(roots, binders=True)  # the zygote's first copy: every object walked
before = [].append  # a C method bound to data, frozen below
observer.freeze_walked()
made = [].append  # made after the freeze: the later copy's to record
{between}
walks = []
every = observer._every_binder
observer._every_binder = lambda: (walks.append(1), every())
observer.snapshot_trusted(roots, binders=True)  # the later copy
binders = observer._COPIES["binders"]
assert binders.get(id(before)) is before, "a binder frozen by the zygote's own freeze was not recorded"
assert binders.get(id(made)) is made, "a binder made since the freeze was not recorded"
assert binders.get(id(hidden)) is hidden, "a binder frozen by someone else was not recorded"
print(len(walks))
"""


@pytest.mark.parametrize(("between", "walked"), [
    ("hidden = made", 0),  # only the zygote froze: what was made since is all there is to walk
    ("hidden = [].append\ngc.freeze()", 1),  # someone else froze a binder since: every object is walked again
], ids=["own-freeze", "frozen-by-another"])
def test_a_later_copy_walks_what_was_made_since_the_zygotes_own_freeze(between, walked):
    import subprocess

    code = _LATER_COPY.replace("{between}", between)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [str(walked)], done.stdout
