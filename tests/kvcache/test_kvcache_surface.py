"""Differential: the public surface of cache_utils, class by class, against upstream 5.15.1.

Same classes, same bases, same methods and properties defined on each class, same signatures and
the same class attributes that drive behaviour. Knowledge-base entries name functions by
qualname, so a missing or renamed method here would break verification.
"""

from __future__ import annotations

import inspect

import pytest

from kvcache_support import BUNDLED, upstream

pytestmark = pytest.mark.upstream

BEHAVIOUR_FLAGS = ("is_compileable", "supports_early_init", "is_sliding", "_layer_type")


def own_classes(module):
    return {
        name: obj
        for name, obj in vars(module).items()
        if inspect.isclass(obj) and obj.__module__ == module.__name__ and obj.__name__ == name
    }


def upstream_classes():
    return own_classes(upstream().cache_utils)


def signature(fn) -> str:
    """Rendered signature, with the defining package's prefix removed from annotations."""
    text = str(inspect.signature(fn))
    return text.replace("errorkb.kvcache.", "").replace("transformers.", "")


def members(cls):
    """Methods and properties defined on the class itself, unwrapped from decorators."""
    found = {}
    for name, value in vars(cls).items():
        if name.startswith("__") and name not in ("__init__", "__iter__", "__len__", "__repr__", "__init_subclass__"):
            continue
        if isinstance(value, property):
            found[name] = ("property", value.fget.__qualname__)
        elif inspect.isfunction(value):
            target = inspect.unwrap(value)
            found[name] = ("function", target.__qualname__, signature(value))
        elif isinstance(value, (classmethod, staticmethod)):
            found[name] = (type(value).__name__, value.__func__.__qualname__)
    return found


def flag_value(cls, flag):
    value = inspect.getattr_static(cls, flag, "<absent>")
    return "<property>" if isinstance(value, property) else value


def _class_ids():
    try:
        import transformers.cache_utils as module  # noqa: F401
    except ImportError:
        return ["no-upstream"]
    return sorted(own_classes(module))


def test_same_classes_and_aliases():
    theirs = upstream()
    assert set(own_classes(BUNDLED.cache_utils)) == set(upstream_classes())
    assert BUNDLED.cache_utils.SlidingWindowCache is BUNDLED.cache_utils.StaticCache
    assert set(BUNDLED.cache_utils.DYNAMIC_LAYER_TYPE_MAPPING) == set(theirs.cache_utils.DYNAMIC_LAYER_TYPE_MAPPING)
    for mapping in ("DYNAMIC_LAYER_TYPE_MAPPING", "STATIC_LAYER_TYPE_MAPPING"):
        ours = {k: v.__name__ for k, v in getattr(BUNDLED.cache_utils, mapping).items()}
        assert ours == {k: v.__name__ for k, v in getattr(theirs.cache_utils, mapping).items()}


@pytest.mark.parametrize("name", _class_ids())
def test_class_surface(name):
    theirs = upstream_classes()[name]
    ours = getattr(BUNDLED.cache_utils, name)
    assert [base.__name__ for base in ours.__mro__] == [base.__name__ for base in theirs.__mro__]
    assert members(ours) == members(theirs)
    for flag in BEHAVIOUR_FLAGS:
        assert flag_value(ours, flag) == flag_value(theirs, flag), flag
    assert inspect.isabstract(ours) == inspect.isabstract(theirs)


def test_module_function_signature():
    theirs = upstream().cache_utils.get_layer_types_and_kwargs
    ours = BUNDLED.cache_utils.get_layer_types_and_kwargs
    assert signature(ours) == signature(theirs)


def test_top_level_cache_exports_exist_upstream():
    theirs = upstream().top
    for name in BUNDLED.top.__all__:
        assert getattr(theirs, name).__name__ == getattr(BUNDLED.top, name).__name__
