"""Validate quantized-cache settings against the chosen backend before building the cache."""

from transformers import LlamaConfig, QuantizedCache

# --8<-- [start:show]
ALLOWED = {
    "quanto": {"nbits": (2, 4), "axis_key": (0, -1), "axis_value": (0, -1)},
    "hqq": {"nbits": (1, 2, 3, 4, 8), "axis_key": (0, 1), "axis_value": (0, 1)},
}


def quantized_cache(backend, config, nbits=4, axis_key=0, axis_value=0, **kwargs):
    for name, value in (("nbits", nbits), ("axis_key", axis_key), ("axis_value", axis_value)):
        if value not in ALLOWED[backend][name]:
            raise ValueError(f"{name}={value} is not supported by the {backend!r} backend; "
                             f"use one of {ALLOWED[backend][name]}")
    return QuantizedCache(backend=backend, config=config, nbits=nbits,
                          axis_key=axis_key, axis_value=axis_value, **kwargs)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
quantized_cache("hqq", config, nbits=4, axis_key=1, axis_value=1)  # supported settings: built by the library
cache = quantized_cache("hqq", config, nbits=4, axis_key=-1, axis_value=-1)
