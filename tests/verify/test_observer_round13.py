"""Round thirteen (red14): C code the snippet planted where the library's C code looks it up, reached from no object.

The scenarios run as `tests/verify/test_observer.py` runs them (a forked process, the stream read back), watching a
function of a module of the target's folder (`lib/hooks.py`).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.verify.test_observer import read, run_scenario

MESSAGE = "n must be positive, got -1"

HOOKS = '''
import contextvars

_HOOK = contextvars.ContextVar("hook")


def hooked(text):
    """Calls what the context variable of its module holds in the current context (read by C: `ContextVar.get`),
    a temporary on the value stack alone."""
    return _HOOK.get(int)(text)


def own_hook(text):
    """Sets its own hook (a function of its own), then calls it."""
    _HOOK.set(parse)
    return hooked(text)


def parse(text):
    return int(text)


class Store:
    def __init__(self):
        self.items = []
        self.frozen = False


def refill(store, items):
    """Takes the store as unfrozen, replaces its items (the old ones die here), then refuses a frozen store."""
    store.frozen = False
    store.items = list(items)
    if store.frozen:
        raise ValueError(f"n must be positive, got {-len(items) - 1}")
    return len(store.items)


_KINDS = {}


class Kind:
    """A base class whose subclasses register themselves in the module's registry, by name."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _KINDS[cls.__name__] = cls


class Number(Kind):
    parse = staticmethod(int)


def _kind(name):
    return _KINDS[name]


def make(name, text):
    """Parses the text with the kind registered under the name, found by a function that returns it."""
    return _kind(name).parse(text)


def from_factory(factory):
    """Raises what the factory it is handed returns."""
    raise factory()


def from_factory_chained(factory):
    """Raises what the factory it is handed returns, from nothing (the cause comes after the call)."""
    raise factory() from None


def lazy(name):
    """Imports a module the first time it is asked for it (the import system calls each finder of `sys.meta_path`)."""
    import importlib

    return importlib.import_module(name)


_PENDING = contextvars.ContextVar("pending")


def deferred():
    """Raises the error pending in the current context, by a `raise` of its own."""
    raise _PENDING.get()
'''

# C code that raises Python's ValueError with the documented text when called, running no code of the snippet's: a
# `max` whose key is the `throw` of an exhausted generator (round eight's gadget).
GADGET = """
import functools
import itertools

spent = (each for each in ())
for _ in spent:
    pass
throws = map(spent.throw, itertools.repeat(ValueError), itertools.repeat(MESSAGE))
chosen = functools.partial(max, key=functools.partial(next, throws))
"""


def _watch_hooks(name: str):
    """A `configure` that watches `hooks.<name>` (`lib/hooks.py`), the library's own files beneath it."""
    from tests.verify.test_observer_round12 import watch_in

    return watch_in("hooks", name, beneath=True)


def _run(tmp_path: Path, body: str, watched: str | Callable[[dict], None]):
    """The scenario watching `hooks.<watched>` (or configured by `watched`), the gadget made first."""
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "hooks.py").write_text(HOOKS)
    body = f"MESSAGE = {MESSAGE!r}\nimport hooks\n" + GADGET + textwrap.dedent(body)
    configure = _watch_hooks(watched) if isinstance(watched, str) else watched
    return read(run_scenario(tmp_path, body, configure=configure)).observation


def _planted(seen) -> bool:
    return any("planted" in what for what in seen.interference + seen.tampered)


def test_c_code_planted_in_a_context_variable_the_library_reads_is_planted(tmp_path):
    """Round thirteen, first hole: the snippet sets a context variable of the library's module (`ContextVar.set`, a
    method call, no import) to its planted C code; the function reads it through C (`ContextVar.get`) and calls it.
    The value lives in the thread's context, which no object the frame holds lists (a `ContextVar`'s referents are
    its name and default): Python's ValueError, the documented text, started in the function's frame, no tampering
    (an implicit entry's before passed)."""
    seen = _run(tmp_path, "hooks._HOOK.set(chosen)\ndel chosen, throws\nhooks.hooked('1')\n", "hooked")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.where == "target", seen.exception
    assert _planted(seen), (seen.interference, seen.tampered)


def test_c_code_planted_in_a_context_the_snippet_runs_the_call_in_is_planted(tmp_path):
    """The same, in a context of the snippet's own (`Context.run`): the call runs in it, so it is the current one."""
    body = """
    import contextvars

    context = contextvars.copy_context()
    context.run(hooks._HOOK.set, chosen)
    del chosen, throws
    context.run(hooks.hooked, "1")
    """
    seen = _run(tmp_path, body, "hooked")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen), (seen.interference, seen.tampered)


def test_a_context_variable_holding_honest_values_is_not_planted(tmp_path):
    """The other side: the library's own hook (its function), and the snippet's plain data in another variable,
    then C code failing on the data the function was handed: the error is the library's, no tampering."""
    body = """
    import contextvars

    contextvars.ContextVar("other").set([1, 2, 3])
    try:
        hooks.own_hook("x")
    except ValueError:
        pass
    """
    seen = _run(tmp_path, body, "hooked")
    assert seen is not None and seen.calls.raised_count == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_an_exception_the_snippet_left_in_a_context_variable_is_not_the_librarys(tmp_path):
    """The same place for round twelve's handed exception: the snippet's own ValueError with the documented text, set
    in a context variable of the library's, raised by the function's own `raise`. Told as the snippet's by where it
    is reached from (the context, a table of Python's that the snippet fills)."""
    seen = _run(tmp_path, "hooks._PENDING.set(ValueError(MESSAGE))\nhooks.deferred()\n", "deferred")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert any("which trusted code raised as it was given" in what for what in seen.interference + seen.tampered), \
        (seen.interference, seen.tampered)


# Issue 22: the containers of Python's own modules (`observer._python_tables`) are taken once in the zygote
# (`snapshot_tables`) and handed to every check forked from it; each check takes again what its set-up changed. The
# cases fork a "zygote" from the lean parent that takes the copies as a zygote does, then the scenario from it; the
# check's set-up (its `configure`, before `install`) replaces a module, or rebinds a container, after the copies.
def _zygote_case(tmp_path: Path, body: str, watched: str, setup: str, library: str = "raising"):
    """A scenario (`round12._run`'s over its `raising` module, or `_run`'s over `hooks`) forked from a process that
    took the zygote's copies first; its observation."""
    import sysconfig

    from errorkb.verify.inside import observer
    from tests.verify import test_observer_round12 as round12
    from tests.verify.lean_parent import fork_and_return

    def zygote():  # pragma: no cover - runs in the fork
        # Python's library as `child.python_roots` has it: its folder and its frozen modules (the import system's)
        stdlib = (sysconfig.get_paths()["stdlib"] + "/", "<frozen ")
        site = (sysconfig.get_paths()["purelib"] + "/",)
        target = (str(tmp_path / "lib") + "/",)
        observer.snapshot_trusted((*stdlib, *site))
        observer.snapshot_tables(stdlib, site, target)

        def configure(config: dict) -> None:
            _SETUPS[setup]()
            (round12._watch_raising if library == "raising" else _watch_hooks)(watched)(config)
            config["stdlib_roots"], config["site_roots"] = list(stdlib), site
            config["trusted_roots"] = (*config["trusted_roots"], "<frozen ")
            # the check takes the zygote's copy (`_python_tables`): the same roots, Python's library trusted
            assert observer._COPIES["tables"][0] == (stdlib, site, tuple(config["target_roots"]))
            assert all(root.startswith(config["trusted_roots"]) for root in (*stdlib, *target))

        return round12._run(tmp_path, body, configure) if library == "raising" else _run(tmp_path, body, configure)

    return fork_and_return(zygote)


def _fresh_re() -> None:
    """The set-up loads `re` again: a module the zygote's copy does not know (the library, imported next, uses it)."""
    import sys

    for name in [name for name in sys.modules if name == "re" or name.startswith("re.")]:
        del sys.modules[name]
    import re  # noqa: F401


def _new_cache() -> None:
    """The set-up rebinds `re._cache` to a new dict: the zygote's copy is of the old one."""
    import re

    re._cache = {}  # type: ignore[attr-defined]


def _new_meta_path() -> None:
    """The set-up rebinds `sys.meta_path` to a new list (a module with no file: no namespace copy says it changed)."""
    import sys

    sys.meta_path = list(sys.meta_path)


_SETUPS = {"fresh-re": _fresh_re, "new-cache": _new_cache, "new-meta-path": _new_meta_path, "none": lambda: None}


@pytest.mark.parametrize("setup", sorted(set(_SETUPS) - {"new-meta-path"}))
def test_pythons_containers_copied_in_the_zygote_still_show_what_the_checks_snippet_planted(tmp_path, setup):
    """Round twelve's `re._cache` attack in a check forked from a zygote that copied the containers before the check's
    set-up loaded `re` again or rebound its cache: the container the snippet writes into is the one the check's copy
    is of, so the planted pattern is seen."""
    from tests.verify import lean_parent
    from tests.verify.test_observer_round12 import _GADGET, _IN_TABLES

    body, watched, _ = _IN_TABLES["re-cache"]
    seen = lean_parent.call(_zygote_case, tmp_path, _GADGET + body, watched, setup)
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen), (seen.interference, seen.tampered)


def test_pythons_containers_copied_in_the_zygote_hold_no_earlier_checks_writes(tmp_path):
    """The other side: the honest run of round twelve (the snippet's own filters and patterns, the library filling
    `re._cache`), forked from the zygote's copies: no tampering."""
    from tests.verify import lean_parent

    body = """
    import re
    import warnings

    warnings.simplefilter("ignore")
    re.match(r"[a-z]+", "abc")
    try:
        raising.digits("x")
    except ValueError:
        pass
    """
    seen = lean_parent.call(_zygote_case, tmp_path, textwrap.dedent(body), "digits", "none")
    assert seen is not None and seen.calls.raised_count == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


def test_a_finder_planted_in_a_meta_path_the_checks_set_up_rebound_is_planted(tmp_path):
    """The same for a container of a module with no file, whose namespace no copy follows: the set-up rebinds
    `sys.meta_path`, the snippet puts a finder whose `find_spec` is its planted C code first in it, and the function
    imports a module not loaded yet: Python's ValueError with the documented text starts beneath it, in the import
    system's frames. (Seen by each check's taking again the containers of such modules, and by the module table's
    search, which meets `sys` as no trusted module's file.)"""
    from tests.verify import lean_parent

    body = "import sys\n\nclass Finder:\n    find_spec = chosen\n\n\nsys.meta_path.insert(0, Finder())\n" \
           "del Finder, chosen, throws\nhooks.lazy('tabnanny')\n"
    seen = lean_parent.call(_zygote_case, tmp_path, body, "lazy", "new-meta-path", "hooks")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.where == "beneath", seen.exception
    assert _planted(seen), (seen.interference, seen.tampered)


_FINALIZERS = {
    # a class of the snippet's whose `__del__` is C code (a partial over `setattr`): called with no argument
    "del": "class Item:\n    __del__ = functools.partial(setattr, store, 'frozen', True)\n\n\n",
    # a weak reference whose callback is C code, called with the reference
    "weakref": "import weakref\n\n\nclass Item:\n    pass\n\n\n",
}


@pytest.mark.parametrize("how", sorted(_FINALIZERS))
def test_c_code_a_finalizer_runs_inside_the_call_changing_what_it_reads_is_seen(tmp_path, how):
    """The function drops the snippet's object (it replaces the store's items), whose finalizer is C code the snippet
    chose (`__del__ = partial(setattr, store, "frozen", True)`, or a weak reference's callback); it runs there, with no
    frame, and sets what the function reads next: the function's own `raise`, Python's class, the documented text.
    Left as a strict xfail from round thirteen (an explicit entry's before passed); closed in round twenty-eight: the
    object was armed as the call started, and its death inside the call is seen (`tests/verify/test_observer_round28.py`)."""
    body = "store = hooks.Store()\n" + _FINALIZERS[how] + "store.items = [Item()]\n"
    if how == "weakref":
        body += "kept = weakref.ref(store.items[0], functools.partial(setattr, store, 'frozen'))\n"
    body += "del Item, chosen, throws\nhooks.refill(store, [])\n"
    seen = _run(tmp_path, body, "refill")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.interference + seen.tampered != [], seen


def test_c_code_planted_in_a_registry_of_the_librarys_module_is_planted_from_the_zygotes_copy(tmp_path):
    """Round twelve's strict xfail (`test_c_code_planted_in_a_registry_of_the_librarys_module_is_planted`), closed: the
    containers the library's modules hold by name are diffed as Python's own are; here in a check forked from a
    zygote that copied them."""
    from tests.verify import lean_parent
    from tests.verify.test_observer_round12 import _GADGET

    body = _GADGET + 'raising._PATTERNS["digits"] = Pattern()\ndel Pattern, throws\nraising.matched("1")\n'
    seen = lean_parent.call(_zygote_case, tmp_path, body, "matched", "none")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen), (seen.interference, seen.tampered)


def test_the_librarys_own_registry_filled_by_its_own_code_is_not_planted(tmp_path):
    """The other side: the library fills its own registry (its function's objects), then C code fails under the
    function on the data it was handed: the error is the library's, no tampering."""
    body = """
    raising._PATTERNS["digits"] = __import__("re").compile(r"\\\\d+")
    raising._PATTERNS["more"] = [raising.digits, raising.Holder()]
    try:
        raising.digits("x")
    except ValueError:
        pass
    """
    from tests.verify.test_observer_round12 import _run, _watch_raising

    seen = _run(tmp_path, body, _watch_raising("digits"))
    assert seen is not None and seen.calls.raised_count == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)


# Round thirteen, third hole (closed in round sixteen): the function's own `raise` of what a call just returned
# (`raise factory()`), where the callable is C code the snippet planted that makes its own error
# (`functools.partial(ValueError, text)`): a new exception, made during the call, that no object the snippet handed
# holds. The planted search ran only where an error started in C code or beneath; running it at the function's own
# `raise` over everything (tried in round thirteen) failed an honest entry closed (remote-model-without-generation-mixin
# on upstream: `typing`'s cache held a `Literal` alias a lazy import made meanwhile, read as planted). Since round
# sixteen it runs there over what the snippet handed the call alone (its arguments, what its code returned into it),
# never Python's tables.
_FACTORIES = {"raise": "from_factory", "raise-from": "from_factory_chained"}


@pytest.mark.parametrize("how", sorted(_FACTORIES))
def test_an_exception_made_by_c_code_the_snippet_planted_and_raised_by_the_function_is_not_the_librarys(tmp_path, how):
    """`from_factory(partial(ValueError, text))`: Python's class, the documented text, started at the function's own
    `raise` (an explicit entry's before passed); `raise factory() from None` too. The partial is among what the snippet
    handed the call: planted."""
    body = f"import functools\nhooks.{_FACTORIES[how]}(functools.partial(ValueError, MESSAGE))\n"
    seen = _run(tmp_path, body, _FACTORIES[how])
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.opcode == "RAISE_VARARGS", seen.exception
    assert _planted(seen), (seen.interference, seen.tampered)


def test_the_functions_own_raise_of_an_error_it_made_is_its_own(tmp_path):
    """The other side: the function's own `raise` of an error its code made (`raising.made`, `raise ValueError(...)`
    through a name, and `from_factory` handed the exception class itself): the library's, no tampering."""
    from tests.verify.test_observer_round12 import _run, _watch_raising

    for body, watched in (("raising.made(-1)\n", "made"), ("raising.from_factory(ValueError)\n", "from_factory")):
        seen = _run(tmp_path, body, _watch_raising(watched))
        assert seen is not None and seen.exception is not None, (watched, seen)
        assert seen.interference == [] and seen.tampered == [], (watched, seen.interference, seen.tampered)


def test_a_subclass_the_librarys_init_subclass_registered_holding_planted_code_is_planted(tmp_path):
    """The registry filled by the library's own `__init_subclass__` when the snippet subclasses its class: the
    snippet's subclass holds its planted C code as `parse`, which the function calls on the class a function of the
    library's returned from the registry (a temporary). Python's ValueError with the documented text, started in the
    function's frame; seen through the registry, a container the library's module holds by name."""
    body = "class Mine(hooks.Kind):\n    parse = chosen\n\n\ndel Mine, chosen, throws\nhooks.make('Mine', '1')\n"
    seen = _run(tmp_path, body, "make")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen), (seen.interference, seen.tampered)


def test_the_librarys_own_registered_kind_is_not_planted(tmp_path):
    """The other side: the library's own kind (registered when its module was imported), failing in C code on the
    data the function was handed: the library's, no tampering."""
    seen = _run(tmp_path, "try:\n    hooks.make('Number', 'x')\nexcept ValueError:\n    pass\n", "make")
    assert seen is not None and seen.calls.raised_count == 1, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)
