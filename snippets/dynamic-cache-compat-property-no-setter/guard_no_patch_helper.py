"""Leave the library's class alone: read a layer's keys through one helper that knows both layouts."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def layer_keys(cache, layer_idx):
    """The keys of one layer: `cache.layers[i].keys` from 4.54 on, `cache.key_cache[i]` before."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return layers[layer_idx].keys
    return cache.key_cache[layer_idx]
# --8<-- [end:show]


cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
assert layer_keys(cache, 0).shape == (1, 2, 4, 16)
