"""Read a layer's key/value tensors on any release: `layers[i].keys` (4.56+) or `key_cache[i]` (4.36-4.55)."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def layer_kv(cache, layer_idx):
    if hasattr(cache, "layers"):
        layer = cache.layers[layer_idx]
        return layer.keys, layer.values
    return cache.key_cache[layer_idx], cache.value_cache[layer_idx]
# --8<-- [end:show]


cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16), layer_idx)
keys, values = layer_kv(cache, 1)
assert keys.shape == values.shape == (1, 2, 6, 16)
