"""Round thirty-one (red32): false-pass attempts on the finalizer watch once its walk is incremental (`_p_fin_young`).

The arming walks what was made since the last one; these attacks reach an object made before it, or hide what was
made since: a library object's `__class__` assigned to a class of the snippet's with a planted `__del__`, the
snippet's `gc.unfreeze` (what the zygote froze is listed again, in the oldest generation), a `__del__` that is a C
function pointer (`ctypes.pythonapi`'s), a class's `__del__` planted by `type.__setattr__` called from C code. Each object is made before a first call, walked there, and dropped inside the second, whose
own `raise` the planted code steers. Run as `tests/verify/test_observer_round28.py` runs its scenarios.
"""

from __future__ import annotations

import pytest

from tests.verify.test_observer_round28 import MESSAGE, _planted, _run

_SET = "functools.partial(setattr, store, 'frozen', True)"
_ATTACKS = {
    # a library object (the module's own class), its class assigned after the first call
    "library-class-assigned": "class Planted(dying.Store):\n    __del__ = " + _SET + "\n\n\n"
                              "kept = [dying.Store()]\ngc.collect()\ndying.refill(store, [])\n"
                              "kept[0].__class__ = Planted\n",
    # the snippet unfreezes the collector after the first call, then plants a `__del__` on an old object's class
    "unfreeze": "class Item:\n    pass\n\n\nkept = [Item()]\ngc.collect()\ndying.refill(store, [])\ngc.unfreeze()\n"
                "Item.__del__ = " + _SET + "\n",
    # `type.__setattr__` called by C code (`map`), after the first call
    "type-setattr-by-c": "class Item:\n    pass\n\n\nkept = [Item()]\ngc.collect()\ndying.refill(store, [])\n"
                         "list(map(type.__setattr__, [Item], ['__del__'], [" + _SET + "]))\n",
}


@pytest.mark.parametrize("how", sorted(_ATTACKS))
def test_a_finalizer_planted_on_an_object_walked_before_is_seen(tmp_path, how):
    body = "import gc\n" + _ATTACKS[how] + "store.items = kept\ndel kept\ndying.refill(store, [])\n"
    seen = _run(tmp_path, body, "refill")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen), (seen.interference, seen.tampered)


def test_a_ctypes_function_pointer_as_the_del_of_an_object_walked_before_is_seen(tmp_path):
    """A `__del__` that is a C function pointer of ctypes' (`ctypes.pythonapi.Py_IncRef`, a class made at run time, not
    Python's own C code), put on the class after the first call: its death inside the second, before the function's
    own `raise`, is seen (it changes nothing here: the watch fails closed on what it could have done)."""
    body = "import ctypes\nimport gc\n\n\nclass Item:\n    pass\n\n\nkept = [Item()]\ngc.collect()\n" \
           "try:\n    dying.refuse(store, [])\nexcept ValueError:\n    pass\n" \
           "Item.__del__ = ctypes.pythonapi.Py_IncRef\nstore.items = kept\ndel kept\ndying.refuse(store, [])\n"
    seen = _run(tmp_path, body, "refuse")
    assert seen is not None and seen.exception is not None and seen.exception.message == MESSAGE, seen
    assert _planted(seen), (seen.interference, seen.tampered)


def test_a_snippet_that_unfreezes_the_collector_and_drops_nothing_planted_is_nothing(tmp_path):
    """The other side: `gc.unfreeze` alone is no tampering; the function raises its own error."""
    body = "import gc\ngc.unfreeze()\ntry:\n    dying.refuse(store, [])\nexcept ValueError:\n    pass\n" \
           "try:\n    dying.refuse(store, [])\nexcept ValueError:\n    pass\n"
    seen = _run(tmp_path, body, "refuse")
    assert seen is not None and seen.calls.raised_count == 2, seen
    assert seen.interference == [] and seen.tampered == [], (seen.interference, seen.tampered)
