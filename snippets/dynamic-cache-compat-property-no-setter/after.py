"""Ask the instance, not the class: up to 4.53 `key_cache` is an instance attribute that __init__ assigns."""

import torch
from transformers import DynamicCache

# --8<-- [start:show]
if not hasattr(DynamicCache(), "key_cache"):  # only releases whose caches really lack key_cache (4.56+)
    DynamicCache.key_cache = property(lambda cache: [layer.keys for layer in cache.layers])
    DynamicCache.value_cache = property(lambda cache: [layer.values for layer in cache.layers])

cache = DynamicCache()
# --8<-- [end:show]
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
assert cache.key_cache[0].shape == (1, 2, 4, 16)
