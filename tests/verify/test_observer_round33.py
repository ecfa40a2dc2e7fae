"""Attack round thirty-three (red39): verdict integrity where session 58 left the library's state unsearched.

(a) A registry held *inside an object* of the library's module, not by a module's name: an instance's attribute, a
dict in a class's namespace, a `functools.lru_cache`'s cache, a `weakref.WeakValueDictionary`, into which the snippet
plants C code (the `_GADGET` of `tests/verify/test_observer_round12.py`: a class of its own whose `match` is a partial
over an exhausted generator's `throw`, raising Python's ValueError with the documented text with no frame) that the
library later finds and calls: the error starts in C code, in the function's frame or beneath it.
(b) A module of the target first loaded while the snippet ran: nothing of it was copied before, so what its names hold
has no "before" to be compared with.
Each hostile case has its honest twin beside it. Run as round thirty-two's (a forked process, the stream read back),
watching a function of `lib/kept.py`, a module of the target's folder loaded before the snippet; `lib/later.py` is one
of the target's that nothing loads before the snippet runs.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.verify.test_observer import read, run_scenario
from tests.verify.test_observer_round12 import _GADGET, watch_in

MESSAGE = "n must be positive, got -1"

KEPT = '''
import collections
import functools
import types
import weakref


class Registry:
    """A registry the library keeps as an object of its module: what it holds is the instance's attribute."""

    def __init__(self):
        self.patterns = {}

    def get(self, key):
        return self.patterns[key]


REGISTRY = Registry()


class Kinds:
    """A registry kept in a class's namespace."""

    table = {}


class Keyed:
    pass


WEAK = weakref.WeakValueDictionary()
SOURCES = {}


@functools.lru_cache(maxsize=None)
def compiled(key):
    """A cache of what the library's sources held when first asked."""
    return SOURCES.get(key)


def _by_object(key):
    return REGISTRY.get(key)


def _by_class(key):
    return Kinds.table[key]


def _by_weak(key):
    return WEAK[key]


def by_object(text):
    """Calls what a registry object of its module holds, found by a function that returned it."""
    return _by_object("digits").match(text)


def by_class(text):
    return _by_class("digits").match(text)


def by_weak(text):
    return _by_weak("digits").match(text)


def by_cache(text):
    return _cached("digits").match(text)


def _cached(key):
    return compiled(key)


def _match_beneath(text):
    return REGISTRY.patterns["digits"].match(text)


def beneath(text):
    """A helper of its module, beneath the function, reads the registry object by its own global."""
    return _match_beneath(text)


def by_later(text):
    """Imports a module of the target at the call (a lazy import), and calls what it holds."""
    import later

    return later.PATTERN.match(text)


def by_later_override(text):
    """Calls a user's override its lazily imported module may hold (a name its own body never binds)."""
    import later

    return getattr(later, "OVERRIDE", later.PATTERN).match(text)


def by_later_registry(text):
    import later

    return later.KEPT.get("digits").match(text)


def by_later_own(where, text):
    """Calls a partial the lazily imported module's own body made and keeps (`where`: in an object's attribute, in a
    dict an object holds, in a class's namespace, in a dict the module holds by name): C code fails on `text`."""
    import later

    own = {"attribute": lambda: later.ACT.act, "held-dict": lambda: later.ACT.table["binary"],
           "class-namespace": lambda: later.Acts.table["binary"], "module-dict": lambda: later.ACTS["binary"]}
    return own[where]()(text)


NAMESPACE = types.SimpleNamespace(patterns={})


def _by_namespace(key):
    return NAMESPACE.patterns[key]


def by_namespace(text):
    """A registry kept in a C object's `__dict__` (a `SimpleNamespace`, whose class holds it in a C member)."""
    return _by_namespace("digits").match(text)


ORDERED = collections.OrderedDict()
BY_DEFAULT = collections.defaultdict(list)
QUEUE = collections.deque()


class Slotted:
    """A registry object with no `__dict__`: what it holds lies in its slots."""

    __slots__ = ("patterns",)

    def __init__(self):
        self.patterns = {}


SLOTTED = Slotted()


def _by_ordered(key):
    return ORDERED[key]


def by_ordered(text):
    return _by_ordered("digits").match(text)


def _by_default(key):
    return BY_DEFAULT[key][0]


def by_default(text):
    return _by_default("digits").match(text)


def _by_queue():
    return QUEUE[0]


def by_queue(text):
    return _by_queue().match(text)


def _by_slot(key):
    return SLOTTED.patterns[key]


def by_slot(text):
    return _by_slot("digits").match(text)


def _override():
    return globals().get("OVERRIDE")


def by_override(text):
    """Reads an optional name of its module (one its own code never binds: a user's override)."""
    return _override().match(text)


class Store:
    frozen = False


class Hooks:
    def __init__(self):
        self.hooks = []


HOOKS = Hooks()


def forward(store):
    """Runs the hooks a registry object of its module holds, then refuses a store no longer unfrozen (its own
    `raise`, the documented text)."""
    store.frozen = False
    for hook in HOOKS.hooks:
        hook()
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return 0


def forward_later(store):
    """As `forward`, over the hooks of a module of the target's it imports at the call."""
    import later

    store.frozen = False
    for hook in later.KEPT.patterns.values():
        hook()
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return 0


def fill(text):
    """The library filling its own registries with its own objects, then C code failing on what it was handed."""
    REGISTRY.patterns["own"] = Keyed()
    Kinds.table["own"] = Keyed()
    kept = Keyed()
    WEAK["own"] = kept
    SOURCES["own"] = kept
    compiled("own")
    return int(text)
'''

LATER = '''
import functools

# a partial its own body makes at its import, binding data to a trusted callable (transformers' openfold utilities'
# `tensor_tree_map = partial(tree_map, leaf_type=torch.Tensor)`): the module's own, not planted
as_binary = functools.partial(int, base=2)


class Kept:
    def __init__(self):
        self.patterns = {}

    def get(self, key):
        return self.patterns[key]


KEPT = Kept()
PATTERN = None


class Act:
    """An activation its body makes (transformers' `activations.gelu_pytorch_tanh = GELUTanh()`, whose
    `self.act = functools.partial(torch.nn.functional.gelu, approximate="tanh")`): partials binding data to C code."""

    def __init__(self):
        self.act = functools.partial(int, base=2)
        self.table = {"binary": functools.partial(int, base=2)}


class Acts:
    table = {"binary": functools.partial(int, base=2)}


ACT = Act()
ACTS = {"binary": functools.partial(int, base=2)}
'''


def _run(tmp_path: Path, body: str, watched: str, more: Callable[[dict], None] | None = None):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "kept.py").write_text(KEPT)
    (folder / "later.py").write_text(LATER)
    body = f"MESSAGE = {MESSAGE!r}\nimport kept\n" + _GADGET + textwrap.dedent(body)
    configure = watch_in("kept", watched)

    def configuring(config: dict) -> None:
        configure(config)
        if more is not None:
            more(config)
        # the library's own code under the function too, as `child` has it
        config["beneath_roots"] = [*config.get("beneath_roots", ()), *config["target_roots"]]

    return read(run_scenario(tmp_path, body, configure=configuring)).observation


def _planted(seen) -> list[str]:
    return [what for what in seen.interference + seen.tampered if "planted" in what]


def _steered(seen) -> None:
    """Python's ValueError with the documented text reached the top, from C code the snippet planted, and was seen."""
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen) != [], (seen.interference, seen.tampered)


# (a): where the snippet plants its `Pattern` (set-up), and the function that finds it there
_IN_OBJECTS = {
    "instance-attribute": ('kept.REGISTRY.patterns["digits"] = Pattern()\n', "by_object"),
    "class-namespace": ('kept.Kinds.table["digits"] = Pattern()\n', "by_class"),
    "weak-value-dict": ('planted = Pattern()\nkept.WEAK["digits"] = planted\n', "by_weak"),
    # cached while planted, then taken out of the library's sources: only the cache holds it
    "lru-cache": ('kept.SOURCES["digits"] = Pattern()\nkept.compiled("digits")\ndel kept.SOURCES["digits"]\n',
                  "by_cache"),
    "read-beneath": ('kept.REGISTRY.patterns["digits"] = Pattern()\n', "beneath"),
    # containers of other types, held by the module's name
    "ordered-dict": ('kept.ORDERED["digits"] = Pattern()\n', "by_ordered"),
    "defaultdict": ('kept.BY_DEFAULT["digits"].append(Pattern())\n', "by_default"),
    "deque": ("kept.QUEUE.append(Pattern())\n", "by_queue"),
    # a registry object with slots, no `__dict__`
    "slots": ('kept.SLOTTED.patterns["digits"] = Pattern()\n', "by_slot"),
    # a name the module's own code never binds, added by the snippet
    "added-name": ("kept.OVERRIDE = Pattern()\n", "by_override"),
    # the registry object's whole `__dict__` swapped for one of the snippet's, and a slot rebound to a new dict
    "dict-swapped": ('kept.REGISTRY.__dict__ = {"patterns": {"digits": Pattern()}}\n', "by_object"),
    "slot-rebound": ('kept.SLOTTED.patterns = {"digits": Pattern()}\n', "by_slot"),
    "simple-namespace": ('kept.NAMESPACE.patterns["digits"] = Pattern()\n', "by_namespace"),
}


@pytest.mark.parametrize("where", sorted(_IN_OBJECTS))
def test_c_code_planted_in_a_registry_inside_an_object_of_the_librarys_module_is_planted(tmp_path, where):
    """The error starts in C code the snippet planted, which the library found in a registry its module keeps inside
    an object (an instance's attribute, a class's namespace, a weak-value dictionary, a cache), returned by a helper
    that has returned (only the value stack holds it), or read by a helper beneath the function."""
    setup, watched = _IN_OBJECTS[where]
    seen = _run(tmp_path, setup + "del Pattern, throws\n" + f"kept.{watched}('1')\n", watched)
    _steered(seen)


def test_the_librarys_own_objects_in_its_registries_are_not_planted(tmp_path):
    """The honest twin: the library fills every registry of its own with objects of its own while the snippet runs,
    then C code fails on the data it was handed: the library's error, nothing planted."""
    seen = _run(tmp_path, "try:\n    kept.fill('x')\nexcept ValueError:\n    pass\n", "fill")
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert _planted(seen) == [], (seen.interference, seen.tampered)


def test_the_snippets_plain_data_in_a_registry_of_the_library_is_not_planted(tmp_path):
    """The honest twin: the snippet registers a plain object of its own (no planted code), and the library's function
    fails on the text it was handed."""
    body = "class Plain:\n    pass\n\n\nkept.REGISTRY.patterns['plain'] = Plain()\nkept.Kinds.table['plain'] = " \
           "Plain()\ntry:\n    kept.fill('x')\nexcept ValueError:\n    pass\n"
    seen = _run(tmp_path, body, "fill")
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert _planted(seen) == [], (seen.interference, seen.tampered)


# (b): a module of the target's first loaded while the snippet ran, its names set by the snippet
_IN_LATER = {
    "name": ("import later\nlater.PATTERN = Pattern()\n", "by_later"),
    "registry-object": ('import later\nlater.KEPT.patterns["digits"] = Pattern()\n', "by_later_registry"),
    "name-before-import": ("import sys, types\nfake = types.ModuleType('later')\nfake.PATTERN = Pattern()\n"
                           "fake.__file__ = kept.__file__.replace('kept.py', 'later.py')\n"
                           "sys.modules['later'] = fake\n", "by_later"),
    # the real module, made by the snippet from its spec with a name planted in its namespace before its own body ran
    # there (the import system's loader): the body's end finds the name, which it did not bind
    "seeded-before-its-body": ("import importlib.util, sys\nspec = importlib.util.find_spec('later')\n"
                               "seeded = importlib.util.module_from_spec(spec)\nseeded.OVERRIDE = Pattern()\n"
                               "spec.loader.exec_module(seeded)\nsys.modules['later'] = seeded\n", "by_later_override"),
    # the same stand-in, claiming no file at all
    "stand-in-without-file": ("import sys, types\nfake = types.ModuleType('later')\nfake.PATTERN = Pattern()\n"
                              "sys.modules['later'] = fake\n", "by_later"),
}


@pytest.mark.parametrize("how", sorted(_IN_LATER))
def test_c_code_planted_in_a_module_first_loaded_while_the_snippet_ran_is_planted(tmp_path, how):
    """The snippet imports a module of the target that was not loaded before it ran (or puts its own under that name
    and file), and sets what it holds: the library's lazy import finds it and calls it."""
    setup, watched = _IN_LATER[how]
    seen = _run(tmp_path, setup + "del Pattern, throws\n" + f"kept.{watched}('1')\n", watched)
    _steered(seen)


def test_a_module_first_loaded_while_the_snippet_ran_holding_its_own_is_nothing(tmp_path):
    """The honest twin: the library's lazy import loads its module, whose own objects hold nothing planted (a partial
    its own body made binds data to trusted C code: the module's, as its body left it); C code fails on the data the
    function was handed."""
    body = "import later\nlater.KEPT.patterns['digits'] = __import__('re').compile('x')\n" \
           "try:\n    kept.by_later_registry(5)\nexcept TypeError:\n    pass\n"
    seen = _run(tmp_path, body, "by_later_registry")
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert _planted(seen) == [], (seen.interference, seen.tampered)


@pytest.mark.parametrize("where", ["attribute", "held-dict", "class-namespace", "module-dict"])
def test_a_partial_the_body_of_a_module_first_loaded_while_the_snippet_ran_made_is_the_librarys(tmp_path, where):
    """The honest twin of the knowledge base's `forward-unexpected-cache-kwarg::before[upstream-cpu]` in subprocess
    isolation, where the library first loads while the snippet runs: a partial binding data to C code that the
    module's own body made and keeps (inside an object, a dict an object holds, a class's namespace, a dict by name),
    called by the library, fails on the data the function was handed: the library's error, nothing planted (round
    thirty-three's first observer searched such registries whole and read the body's partials as the snippet's)."""
    body = f"try:\n    kept.by_later_own({where!r}, 'x')\nexcept ValueError:\n    pass\n"
    seen = _run(tmp_path, body, "by_later_own")
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert _planted(seen) == [], (seen.interference, seen.tampered)


@pytest.mark.parametrize("where", ["attribute", "held-dict", "class-namespace", "module-dict"])
def test_a_partial_the_snippet_put_where_the_body_kept_its_own_is_planted(tmp_path, where):
    """The hostile twin: the snippet puts its `Pattern`'s gadget where the body kept its own partial (after the body
    ended), and the library calls it."""
    put = {"attribute": "later.ACT.act = Pattern().match\n", "held-dict": "later.ACT.table['binary'] = Pattern().match\n",
           "class-namespace": "later.Acts.table['binary'] = Pattern().match\n",
           "module-dict": "later.ACTS['binary'] = Pattern().match\n"}[where]
    seen = _run(tmp_path, "import later\n" + put + f"del Pattern, throws\nkept.by_later_own({where!r}, '1')\n",
                "by_later_own")
    _steered(seen)


_OWN_RAISE = {
    "instance-attribute": ("kept.HOOKS.hooks.append(functools.partial(setattr, store, 'frozen', True))\n", "forward"),
    "module-loaded-since": ("import later\nlater.KEPT.patterns['hook'] = functools.partial(setattr, store, 'frozen', "
                            "True)\n", "forward_later"),
}


@pytest.mark.xfail(strict=True, reason="known limit (docs/threat-model.md, rounds thirty-two and thirty-three): at the "
                                       "function's own `raise` no registry of the library's is searched, by a module's "
                                       "name or inside an object: trusted code registers partials of its own while "
                                       "the snippet runs (torch.export's pytree tables) and no event says who made one")
@pytest.mark.parametrize("where", sorted(_OWN_RAISE))
def test_a_c_callable_binding_the_snippets_data_in_a_registry_object_steering_the_own_raise_is_seen(tmp_path, where):
    """Round thirty-two's strict xfail, in the places this round searched: the hook is a C callable binding the
    snippet's data, registered inside an object of the library's module (or of a module loaded since), which the
    library runs before its own `raise`; no frame of the snippet's runs."""
    setup, watched = _OWN_RAISE[where]
    seen = _run(tmp_path, "store = kept.Store()\n" + setup + f"kept.{watched}(store)\n", watched)
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.interference + seen.tampered != [], seen


def _zygote_case(tmp_path: Path, body: str, watched: str):
    """`_run`'s scenario forked from a process that loaded the library and took the zygote's copies first
    (`snapshot_trusted`, `snapshot_tables`), as a forked check is: its registries come from the zygote's take."""
    import importlib
    import sys
    import sysconfig

    from errorkb.verify.inside import observer
    from tests.verify.lean_parent import fork_and_return

    def zygote():  # pragma: no cover - runs in the fork
        folder = tmp_path / "lib"
        folder.mkdir(exist_ok=True)
        (folder / "kept.py").write_text(KEPT)
        sys.path.insert(0, str(folder))
        importlib.import_module("kept")  # loaded before the zygote's take, as the zygote loads the library
        stdlib = (sysconfig.get_paths()["stdlib"] + "/", "<frozen ")
        site = (sysconfig.get_paths()["purelib"] + "/",)
        target = (str(folder) + "/",)
        observer.snapshot_trusted((*stdlib, *site, *target))
        observer.snapshot_tables(stdlib, site, target)
        taken = [entry[0] for _, entries in observer._COPIES["tables"][1] for entry in entries]
        assert any(table is sys.modules["kept"].REGISTRY for table in taken)

        def configure(config: dict) -> None:
            config["stdlib_roots"], config["site_roots"] = list(stdlib), site
            config["trusted_roots"] = (*config["trusted_roots"], "<frozen ")
            # the check takes the zygote's copy (`_python_tables`): the same roots, the library's folder trusted
            assert observer._COPIES["tables"][0] == (stdlib, site, tuple(config["target_roots"]))
            assert all(root.startswith(config["trusted_roots"]) for root in (*stdlib, *target))

        return _run(tmp_path, body, watched, configure)

    return fork_and_return(zygote)


@pytest.mark.parametrize("where", ["instance-attribute", "lru-cache", "slots", "deque", "class-namespace",
                                   "simple-namespace"])
def test_c_code_planted_in_a_registry_inside_an_object_is_planted_from_the_zygotes_copy(tmp_path, where):
    """As above, in a check forked from a zygote that took the library's registries before any check existed."""
    from tests.verify import lean_parent

    setup, watched = _IN_OBJECTS[where]
    seen = lean_parent.call(_zygote_case, tmp_path, setup + "del Pattern, throws\n" + f"kept.{watched}('1')\n",
                            watched)
    _steered(seen)


def test_the_librarys_own_registries_from_the_zygotes_copy_are_not_planted(tmp_path):
    """The honest twin, forked from the zygote."""
    from tests.verify import lean_parent

    seen = lean_parent.call(_zygote_case, tmp_path, "try:\n    kept.fill('x')\nexcept ValueError:\n    pass\n", "fill")
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert _planted(seen) == [], (seen.interference, seen.tampered)
