"""Attack round thirty-two (red37): verdict integrity, false-pass attempts from the snippet.

Each attack steers the watched function's own `raise` (Python's class, the documented text) or the exception that
reaches the top, by code of the snippet's that runs with no frame of its own, or by rewriting what the exception says
of itself after it started: C callables binding the snippet's data (`functools.partial`, `operator.methodcaller`,
`types.MethodType`) handed to the library as a callback (a hook registry, `copyreg`'s dispatch table), a module table
entry swapped between two library calls, the snippet's `__init_subclass__` / `__set_name__` / descriptor that the
library's own code triggers, `gc.disable()` around a planted finalizer, an exception whose `__traceback__` is
rewritten, whose `__class__` is assigned, whose notes forge its message's tail. Each has its honest twin beside it.
The scenarios run as `tests/verify/test_observer_round28.py` runs its own (a forked process, the stream read back),
watching a function of a module of the target's folder (`lib/hooked.py`).
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.verify.test_observer import read, run_scenario
from tests.verify.test_observer_round12 import watch_in

MESSAGE = "n must be positive, got -1"

HOOKED = '''
import copy
import functools


class Store:
    def __init__(self):
        self.frozen = False
        self.items = []
        self.hooks = {}

    def register_forward_hook(self, hook):
        self.hooks[len(self.hooks)] = hook
        return hook


class LibraryError(Exception):
    pass


class OtherError(Exception):
    pass


HOOKS = []


def register(hook):
    """A `register_forward_hook`-style registry: the library calls each hook with the store."""
    HOOKS.append(hook)
    return hook


def forward(store):
    """Runs the hooks, then refuses a store no longer unfrozen (its own `raise`, the documented text)."""
    store.frozen = False
    for hook in HOOKS:
        hook(store)
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return 0


def forward_plain(store):
    """As `forward`, each hook called with nothing."""
    store.frozen = False
    for hook in HOOKS:
        hook()
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return 0


def register_defaults(store):
    """The library registers a hook of its own, made now: a partial over a function of its own binding its store."""
    HOOKS.append(functools.partial(_noted, store))


def _noted(store, *args):
    store.noted = True


def forward_own(store):
    """As `forward`, over the hooks the store holds itself (torch's `Module._forward_hooks`, on the module)."""
    store.frozen = False
    for hook in list(store.hooks.values()):
        hook(store)
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return 0


def snapshot(store):
    """Copies each item (copy's reducers, `copyreg.dispatch_table`), keeping one it cannot copy, then refuses."""
    store.frozen = False
    kept = []
    for item in store.items:
        try:
            kept.append(copy.copy(item))
        except Exception:  # noqa: BLE001  # the reducer's failure: kept as it is
            kept.append(item)
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return kept


def lazy(store):
    """Imports its helper at the call (a lazy import), hands it the store, then refuses."""
    store.frozen = False
    import helper

    helper.check(store)
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return 0


def derive(store, base):
    """Makes a subclass of the class it is handed (its `__init_subclass__` runs), then refuses."""
    store.frozen = False

    class Derived(base):
        pass

    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return Derived


def holder(store, field):
    """Makes a class holding the field it is handed (its `__set_name__` runs), then refuses."""
    store.frozen = False
    made = type("Made", (), {"field": field})
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return made


def configure(store, config):
    """Reads the mode of the config it is handed (an attribute read), then refuses."""
    store.frozen = False
    mode = config.mode
    if store.frozen is not False:
        raise ValueError("n must be positive, got -1")
    return mode


def refuse(store, items):
    """Replaces the store's items (the old ones die here), then refuses, always."""
    store.items = list(items)
    raise ValueError(f"n must be positive, got {-len(items) - 1}")


def wrong(n):
    """Raises the library's other error."""
    raise OtherError(f"n is {n}")


def refill(store, items):
    """Takes the store as unfrozen, replaces its items (the old ones die here), then refuses a store no longer
    unfrozen."""
    store.frozen = False
    store.items = list(items)
    if store.frozen is not False:
        raise ValueError(f"n must be positive, got {-len(items) - 1}")
    return len(store.items)
'''

HELPER = '''
def check(store):
    return store
'''


def _run(tmp_path: Path, body: str, watched: str, callbacks: bool = False):
    folder = tmp_path / "lib"
    folder.mkdir(exist_ok=True)
    (folder / "hooked.py").write_text(HOOKED)
    (folder / "helper.py").write_text(HELPER)
    body = f"MESSAGE = {MESSAGE!r}\nimport functools\nimport operator\nimport types\nimport weakref\nimport hooked\n" \
           "store = hooked.Store()\n" + textwrap.dedent(body)
    return read(run_scenario(tmp_path, body, callbacks=callbacks, configure=_watch(watched))).observation


def _watch(watched: str):
    """`watch_in("hooked", watched)`, the library's helper module loaded before the snippet runs, as the zygote loads
    the library's modules."""
    configure = watch_in("hooked", watched)

    def both(config: dict) -> None:
        import importlib

        importlib.import_module("helper")
        configure(config)

    return both


def _seen(seen) -> list[str]:
    return seen.interference + seen.tampered


def _steered(seen) -> None:
    """The function's own `raise` with the documented text reached the top, and what steered it was seen."""
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert seen.exception.started is not None and seen.exception.started.opcode == "RAISE_VARARGS", seen.exception
    assert _seen(seen) != [], seen


def _honest(seen, raised: int = 1) -> None:
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == raised, seen
    assert _seen(seen) == [], _seen(seen)


_SOURCE = "class Source:\n    pass\n\n\nsource = Source()\nsource.frozen = True\n"

# C callables binding the snippet's data, registered as a hook the library calls: (watched function, set-up)
_HOOKS = {
    "partial-setattr": ("forward_plain", "hooked.register(functools.partial(setattr, store, 'frozen', True))\n"),
    "methodcaller": ("forward", "hooked.register(operator.methodcaller('__setattr__', 'frozen', True))\n"),
    "methodtype-over-partial": ("forward_plain", "hooked.register(types.MethodType(functools.partial(setattr, store, "
                                                 "'frozen'), True))\n"),
    "methodtype-setattr": ("forward", "hooked.register(types.MethodType(functools.partial(setattr, store), "
                                      "'frozen'))\n"),
    "partial-trusted-python": ("forward_plain", _SOURCE + "hooked.register(functools.partial(functools.update_wrapper,"
                                                " store, source, (), ('__dict__',)))\ndel source\n"),
}


@pytest.mark.parametrize("how", sorted(_HOOKS))
def test_a_c_callable_binding_the_snippets_data_registered_as_a_hook_is_seen(tmp_path, how):
    """The library calls what the snippet registered; the callable is C code (or trusted Python code reached through
    C code) bound to the snippet's data, with no frame of the snippet's: it freezes the store, and the function's own
    `raise` follows. No callback is declared. Found where the library keeps it: what its modules' containers hold that
    they did not before the snippet ran, searched at the function's own `raise` (`_p_planted_registered`)."""
    watched, setup = _HOOKS[how]
    seen = _run(tmp_path, setup + f"hooked.{watched}(store)\n", watched)
    _steered(seen)


_OWN_HOOKS = {
    "partial-setattr": "functools.partial(setattr, store, 'frozen')",
    "methodcaller": "operator.methodcaller('__setattr__', 'frozen', True)",
    "methodtype": "types.MethodType(functools.partial(setattr, store), 'frozen')",
}


@pytest.mark.parametrize("how", sorted(_OWN_HOOKS))
def test_a_c_callable_binding_the_snippets_data_registered_on_the_object_it_hands_is_seen(tmp_path, how):
    """torch's shape: the hooks live on the object the snippet hands the call (`Module._forward_hooks`), which the
    search at the function's own `raise` walks: the C callable binding the snippet's data is found there."""
    body = _SOURCE + f"store.register_forward_hook({_OWN_HOOKS[how]})\ndel source\nhooked.forward_own(store)\n"
    _steered(_run(tmp_path, body, "forward_own"))


def test_a_hook_of_the_snippets_own_python_code_is_its_code_running_in_the_call(tmp_path):
    """The frame twin: a hook of the snippet's own Python code runs in a frame, seen as an undeclared callback."""
    seen = _run(tmp_path, "def hook(s):\n    s.frozen = True\n\n\nhooked.register(hook)\nhooked.forward(store)\n",
                "forward")
    _steered(seen)


def test_a_partial_over_the_snippets_own_hook_registered_and_declared_is_not_planted(tmp_path):
    """The honest twin in the registry: a partial over the snippet's own Python hook bound to its name (followed where it
    runs: a callback the entry declares, whose steering is the reviewer's), the function refusing on what it did."""
    body = "def hook(s, name):\n    s.frozen = name\n\n\nhooked.register(functools.partial(hook, name='layer'))\n" \
           "try:\n    hooked.forward(store)\nexcept ValueError:\n    pass\n"
    seen = _run(tmp_path, body, "forward", callbacks=True)
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 1, seen
    assert _seen(seen) == [], _seen(seen)


@pytest.mark.xfail(strict=True, reason="known limit (docs/threat-model.md): a partial trusted code makes while the "
                                       "snippet runs, binding objects to a function of its own, is read as the "
                                       "snippet's (no event says who made it); found in the library's registry at its "
                                       "own `raise` since round thirty-two, as on what the snippet handed before")
def test_a_partial_the_library_registered_itself_while_the_snippet_ran_is_not_planted(tmp_path):
    """The library's side: it makes and registers its own hook while the snippet runs (a partial over its own function,
    binding its store); the function, run with that hook, refuses on its own."""
    body = "hooked.register_defaults(store)\ntry:\n    hooked.wrong(-1)\nexcept hooked.OtherError:\n    pass\n" \
           "try:\n    hooked.refuse(store, [])\nexcept ValueError:\n    pass\n"
    seen = _run(tmp_path, body, "refuse")
    _honest(seen)


def test_a_hook_binding_plain_data_to_trusted_code_that_steers_nothing_is_not_planted(tmp_path):
    """The honest twin: a hook that is trusted C code over plain data (`print` to nowhere), the function refusing on
    its own (the store frozen by the library's caller beforehand is reset by the function)."""
    body = "import io\nhooked.register(functools.partial(print, 'hooked', file=io.StringIO()))\n" \
           "try:\n    hooked.refuse(store, [])\nexcept ValueError:\n    pass\nhooked.forward_plain(store)\n"
    seen = _run(tmp_path, body, "forward_plain")
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 0, seen
    assert _seen(seen) == [], _seen(seen)


def test_a_copyreg_reducer_binding_the_snippets_data_is_seen(tmp_path):
    """`copyreg.pickle(Item, partial(setattr, store, 'frozen'))`: `copy.copy` inside the call runs the reducer (C code,
    no frame) on the snippet's item; it freezes the store, the copy fails, the library keeps the item and refuses."""
    body = "import copyreg\n\n\nclass Item:\n    pass\n\n\n" \
           "copyreg.pickle(Item, functools.partial(setattr, store, 'frozen'))\nstore.items = [Item()]\n" \
           "hooked.snapshot(store)\n"
    seen = _run(tmp_path, body, "snapshot")
    _steered(seen)


def test_a_copyreg_reducer_of_python_code_that_copies_plainly_is_not_planted(tmp_path):
    """The honest twin: a reducer the snippet registered for its own class, of its own Python code, declared as a
    callback; the item copies and the function returns."""
    body = "import copyreg\n\n\nclass Item:\n    pass\n\n\ndef reduce(item):\n    return Item, ()\n\n\n" \
           "copyreg.pickle(Item, reduce)\nstore.items = [Item()]\nhooked.snapshot(store)\n"
    seen = _run(tmp_path, body, "snapshot", callbacks=True)
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 0, seen
    assert _seen(seen) == [], _seen(seen)


_SWAPS = {
    # the module table's entry replaced by a namespace whose `check` is C code bound to the snippet's data
    "namespace": "sys.modules['helper'] = types.SimpleNamespace(check=operator.methodcaller('__setattr__', "
                 "'frozen', True))\n",
    # swapped before the second call, put back after it: the end finds the table as it was
    "put-back": "kept = sys.modules['helper']\nsys.modules['helper'] = types.SimpleNamespace("
                "check=operator.methodcaller('__setattr__', 'frozen', True))\n"
                "try:\n    hooked.lazy(store)\nfinally:\n    sys.modules['helper'] = kept\n",
    # a fresh module object of the snippet's under the name
    "module": "fake = types.ModuleType('helper')\nfake.check = operator.methodcaller('__setattr__', 'frozen', True)\n"
              "sys.modules['helper'] = fake\n",
}


@pytest.mark.parametrize("how", sorted(_SWAPS))
def test_a_module_table_entry_swapped_between_two_library_calls_is_seen(tmp_path, how):
    """The first call imports the helper honestly; the snippet swaps the module table's entry (or its function) before
    the second, whose lazy `import helper` finds what the snippet put there."""
    body = "import sys\nimport helper\nhooked.lazy(store)\n" + _SWAPS[how]
    body += "" if how == "put-back" else "hooked.lazy(store)\n"
    seen = _run(tmp_path, body, "lazy")
    _steered(seen)


def test_a_lazy_import_of_the_librarys_own_helper_twice_is_nothing(tmp_path):
    """The honest twin: two calls, the helper imported by the first, nothing swapped."""
    body = "import sys\nimport helper\nhooked.lazy(store)\nhooked.lazy(store)\ntry:\n    hooked.refuse(store, [])\n" \
           "except ValueError:\n    pass\n"
    seen = _run(tmp_path, body, "lazy")
    assert seen is not None and seen.calls is not None and seen.calls.raised_count == 0, seen
    assert _seen(seen) == [], _seen(seen)


_TRIGGERED = {
    # `__init_subclass__` as a partial over C code, called by `type.__new__` inside the library's `class` statement
    "init-subclass": ("derive", "class Base:\n    __init_subclass__ = functools.partial(setattr, store, 'frozen', True)"
                                "\n\n\nhooked.derive(store, Base)\n"),
    # `__set_name__` reached through a property over C code: `type.__new__` reads it off the field, running the getter
    "set-name": ("holder", "class Field:\n    __set_name__ = property(functools.partial(setattr, store, 'frozen'))\n"
                           "\n\nhooked.holder(store, Field())\n"),
    # a property of the snippet's whose getter is C code bound to the store, read by the library's attribute read
    "descriptor": ("configure", "class Config:\n    mode = property(functools.partial(setattr, store, 'frozen'))\n\n\n"
                                "hooked.configure(store, Config())\n"),
    # a data descriptor of the snippet's whose `__get__` is a partial over C code
    "descriptor-get": ("configure", "class Getter:\n    __get__ = functools.partial(setattr, store, 'frozen')\n"
                                    "    __set__ = None\n\n\nclass Config:\n    mode = Getter()\n\n\n"
                                    "hooked.configure(store, Config())\n"),
}


@pytest.mark.parametrize("how", sorted(_TRIGGERED))
def test_a_hook_of_the_snippets_class_the_librarys_code_triggers_is_seen(tmp_path, how):
    """The library's own code (a `class` statement, `type()`, an attribute read) runs a special method or descriptor
    of a class of the snippet's that is C code bound to the snippet's data: it freezes the store."""
    watched, body = _TRIGGERED[how]
    seen = _run(tmp_path, body, watched)
    assert seen is not None and seen.exception is not None, seen
    assert _seen(seen) != [], seen


def test_a_plain_class_and_field_the_library_derives_and_holds_is_nothing(tmp_path):
    """The honest twin: a base, a field and a config of the snippet's with nothing planted."""
    body = "class Base:\n    pass\n\n\nclass Config:\n    mode = 'eager'\n\n\nhooked.derive(store, Base)\n" \
           "hooked.holder(store, object())\nhooked.configure(store, Config())\n"
    for watched in ("derive", "holder", "configure"):
        seen = _run(tmp_path, body, watched)
        assert seen is not None and seen.calls is not None and seen.calls.raised_count == 0, seen
        assert _seen(seen) == [], (watched, _seen(seen))


@pytest.mark.parametrize("collector", ["disable", "disable-freeze-after"])
def test_a_planted_finalizer_with_the_collector_disabled_is_seen(tmp_path, collector):
    """`gc.disable()` stops automatic collection, not the collector's list the finalizer watch walks: a weak
    reference's C callback bound to the store still dies inside the call, and is seen."""
    extra = "gc.freeze()\n" if collector == "disable-freeze-after" else ""
    body = "import gc\ngc.disable()\n\n\nclass Item:\n    pass\n\n\nstore.items = [Item()]\n" \
           "kept = weakref.ref(store.items[0], functools.partial(setattr, store, 'frozen'))\n" + extra + \
           "hooked.refill(store, [])\n"
    seen = _run(tmp_path, body, "refill")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _seen(seen) != [], seen


def test_a_disabled_collector_alone_is_nothing(tmp_path):
    """The honest twin: `gc.disable()` (as benchmarks do), the function refusing on its own."""
    body = "import gc\ngc.disable()\ntry:\n    hooked.refuse(store, [])\nexcept ValueError:\n    pass\n"
    _honest(_run(tmp_path, body, "refuse"))


_REWRITTEN = {
    # the snippet's own error carrying the traceback of the library's genuine one
    "with-traceback": "try:\n    hooked.refuse(store, [])\nexcept ValueError as error:\n    tb = error.__traceback__\n"
                      "raise ValueError(MESSAGE).with_traceback(tb)\n",
    # the same, the traceback assigned
    "traceback-assigned": "try:\n    hooked.refuse(store, [])\nexcept ValueError as error:\n    tb = error.__traceback__\n"
                          "mine = ValueError(MESSAGE)\nmine.__traceback__ = tb\nraise mine\n",
    # a traceback chain whose `tb_next` is reassigned to end at the library's frame
    "tb-next": "try:\n    hooked.refuse(store, [])\nexcept ValueError as error:\n    tb = error.__traceback__\n"
               "try:\n    raise ValueError(MESSAGE)\nexcept ValueError as mine:\n    head = mine.__traceback__\n"
               "    head.tb_next = tb.tb_next\n    raise mine\n",
}


@pytest.mark.parametrize("how", sorted(_REWRITTEN))
def test_an_exception_whose_traceback_is_rewritten_to_the_librarys_is_not_the_one_that_started_there(tmp_path, how):
    """The raise site a traceback reads is not what the observer saw: the exception that reaches the top is the
    snippet's object, which started in the snippet, whatever traceback it carries."""
    seen = _run(tmp_path, _REWRITTEN[how], "refuse")
    assert seen is not None and seen.exception is not None, seen
    assert seen.exception.started is None or seen.exception.started.where == "snippet", seen.exception.started


def test_the_librarys_own_exception_reraised_with_its_traceback_is_its_own(tmp_path):
    """The honest twin: the library's own error, caught and re-raised as it is (its traceback kept)."""
    body = "try:\n    hooked.refuse(store, [])\nexcept ValueError as error:\n    kept = error\nraise kept\n"
    seen = _run(tmp_path, body, "refuse")
    assert seen is not None and seen.exception is not None and seen.exception.started is not None, seen
    assert seen.exception.started.where == "target" and seen.exception.message == MESSAGE, seen.exception


def test_an_exceptions_class_assigned_after_it_started_is_judged_by_the_class_it_started_as(tmp_path):
    """`error.__class__ = hooked.LibraryError` on the library's `OtherError` (two heap classes of one layout): the
    class the judge reads is the one it had as it started, not the one assigned."""
    body = "try:\n    hooked.wrong(-1)\nexcept hooked.OtherError as error:\n    error.__class__ = hooked.LibraryError\n" \
           "    error.args = (MESSAGE,)\n    raise\n"
    seen = _run(tmp_path, body, "wrong")
    assert seen is not None and seen.exception is not None and seen.exception.started is not None, seen
    assert seen.exception.started.type == "OtherError", seen.exception.started
    assert seen.exception.started.message == "n is -1", seen.exception.started


def test_a_note_added_after_the_exception_started_is_not_its_message(tmp_path):
    """`add_note` appends to `__notes__`, which the traceback prints after the message: the message the judge reads
    is the one it had as it started, with no note."""
    body = "try:\n    hooked.wrong(-1)\nexcept hooked.OtherError as error:\n    error.add_note(', got -1')\n" \
           "    error.__notes__.append(MESSAGE)\n    raise\n"
    seen = _run(tmp_path, body, "wrong")
    assert seen is not None and seen.exception is not None and seen.exception.started is not None, seen
    assert seen.exception.started.message == "n is -1", seen.exception.started
    assert MESSAGE not in (seen.exception.message or ""), seen.exception
