"""Differential: the public surface of cache_utils, class by class, against upstream 5.15.1.

Same classes, same bases, same methods and properties defined on each class, same signatures and
the same class attributes that drive behaviour. Knowledge-base entries name functions by
qualname, so a missing or renamed method here would break verification.
"""

from __future__ import annotations

import inspect

import pytest

from tests.kvcache.kvcache_support import BUNDLED, upstream

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
    return text.replace("transformers_errorkb.kvcache.", "").replace("transformers.", "")


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
        import transformers.cache_utils as module
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


CONFIG_ATTRIBUTES = (
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "head_dim",
    "sliding_window",
    "layer_types",
    "attention_chunk_size",
    "num_kv_shared_layers",
    "is_encoder_decoder",
    "dtype",
)

CONFIG_RECIPES = {
    "llama-default": ("LlamaConfig", {}),
    "llama-gqa": ("LlamaConfig", {"num_hidden_layers": 12, "num_attention_heads": 8, "num_key_value_heads": 2, "hidden_size": 1024}),
    "llama-head-dim": ("LlamaConfig", {"head_dim": 96, "torch_dtype": "float16"}),
    "mistral-default": ("MistralConfig", {}),
    "mistral-window": ("MistralConfig", {"num_hidden_layers": 3, "sliding_window": 8}),
    "mistral-no-window": ("MistralConfig", {"sliding_window": None}),
    "gemma2-default": ("Gemma2Config", {}),
    "gemma2-small": ("Gemma2Config", {"num_hidden_layers": 5, "sliding_window": 4}),
    "gemma2-layer-types": ("Gemma2Config", {"num_hidden_layers": 2, "layer_types": ["full_attention", "full_attention"]}),
    "t5-default": ("T5Config", {}),
    "t5-decoder": ("T5Config", {"num_layers": 3, "num_decoder_layers": 5, "d_kv": 32}),
    "generic-hybrid": (
        "PreTrainedConfig",
        {"num_hidden_layers": 3, "layer_types": ["full_attention", "linear_attention", "moe"], "number_of_conv_states": 2},
    ),
    "generic-chunked": ("PreTrainedConfig", {"num_hidden_layers": 2, "attention_chunk_size": 4, "dtype": "bfloat16"}),
    "generic-empty": ("PreTrainedConfig", {}),
}


def config_view(config):
    view = {}
    for name in CONFIG_ATTRIBUTES:
        value = getattr(config, name, "<absent>")
        view[name] = str(value) if name == "dtype" else value
    return view


@pytest.mark.parametrize("recipe", list(CONFIG_RECIPES))
def test_config_attributes_agree(recipe):
    class_name, kwargs = CONFIG_RECIPES[recipe]
    theirs = getattr(upstream().top, class_name)(**kwargs)
    ours = getattr(BUNDLED.top, class_name)(**kwargs)
    assert config_view(ours) == config_view(theirs)
    assert config_view(ours.get_text_config(decoder=True)) == config_view(theirs.get_text_config(decoder=True))
