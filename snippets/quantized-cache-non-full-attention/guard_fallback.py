"""Quantize the cache where the model allows it, keep a plain cache elsewhere."""

import warnings

import torch
from transformers import DynamicCache, DynamicLayer, LlamaConfig, MistralConfig, QuantizedCache


# --8<-- [start:show]
def kv_cache(config, backend="quanto", **options):
    if all(type(layer) is DynamicLayer for layer in DynamicCache(config=config).layers):
        return QuantizedCache(backend=backend, config=config, **options)
    warnings.warn("this model has non-full-attention layers; using an unquantized DynamicCache", stacklevel=2)
    return DynamicCache(config=config)
# --8<-- [end:show]


device = "cuda" if torch.cuda.is_available() else "cpu"
keys = torch.randn(1, 4, 8, 64, device=device)
for config in (
    LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4),
    MistralConfig(
        num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4, sliding_window=4096
    ),
):
    cache = kv_cache(config)
    cache.update(keys, keys, layer_idx=0)
    assert cache.get_seq_length() == 8
