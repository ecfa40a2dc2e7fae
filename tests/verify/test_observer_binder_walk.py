"""The binder walk (`observer._record_binders_among`) asks each class once, and records what the per-object rule does."""

from __future__ import annotations

import functools
import gc
import operator
import types

from errorkb.verify.inside import observer


def test_the_walk_records_the_binders_the_per_object_rule_finds():
    class Mapper(map):  # a calling iterator's subclass: a binder by its MRO
        pass

    held = [functools.partial(len), operator.itemgetter(1), Mapper(len, []), [].append, (1).__add__, len,
            object.__new__, types.ModuleType("m").__dir__]
    values = gc.get_objects() + held
    expected = {id(value) for value in values
                if observer._p_in_binders(type(value))
                or observer._p_bound_to_data(value, type(value)) is not observer._c_MISSING}
    saved = observer._COPIES["binders"]
    observer._COPIES["binders"] = {}
    try:
        observer._record_binders_among(values)
        recorded = set(observer._COPIES["binders"])
    finally:
        observer._COPIES["binders"] = saved
    assert recorded == expected
    assert {id(held[0]), id(held[1]), id(held[2]), id(held[3])} <= recorded
    assert id(len) not in recorded and id(object.__new__) not in recorded
