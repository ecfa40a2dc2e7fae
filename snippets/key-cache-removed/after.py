"""Since 4.56 each layer is an object in `cache.layers`, holding its own `keys` and `values`."""

import torch
from transformers import DynamicCache

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16), layer_idx)

# --8<-- [start:show]
for layer in cache.layers:
    layer.keys = layer.keys[:, :, -4:]
    layer.values = layer.values[:, :, -4:]
# --8<-- [end:show]
assert cache.layers[1].keys.shape == (1, 2, 4, 16)
