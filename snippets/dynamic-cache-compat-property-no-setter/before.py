"""A compatibility shim written for transformers 4.56+ (VibeVoice-node style), run on an older release."""

import torch
from transformers import DynamicCache

# --8<-- [start:show]
if not hasattr(DynamicCache, "key_cache"):  # meant for 4.56+, where the cache keeps layers instead of lists
    DynamicCache.key_cache = property(lambda cache: [layer.keys for layer in cache.layers])
    DynamicCache.value_cache = property(lambda cache: [layer.values for layer in cache.layers])

cache = DynamicCache()  # up to 4.53, __init__ itself assigns self.key_cache = []
# --8<-- [end:show]
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
