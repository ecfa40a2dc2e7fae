"""When the number of layers is not known up front, use a cache that grows."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
cache = DynamicCache()  # no config: appends a layer for every new layer_idx
for layer_idx in range(8):
    k = torch.randn(1, 8, 4, 64, device=device)
    cache.update(k, torch.randn_like(k), layer_idx=layer_idx)
# --8<-- [end:show]
assert len(cache) == 8
