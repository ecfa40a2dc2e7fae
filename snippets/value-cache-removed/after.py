"""The values of layer i are `cache.layers[i].values` since 4.56."""

import torch
from transformers import DynamicCache

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16), layer_idx)

# --8<-- [start:show]
value_norms = [layer.values.norm(dim=-1).mean().item() for layer in cache.layers]
# --8<-- [end:show]
assert len(value_norms) == 2
