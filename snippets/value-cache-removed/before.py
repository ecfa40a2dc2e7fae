"""Custom code reading the value tensors of a cache through `value_cache`."""

import torch
from transformers import DynamicCache

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16), layer_idx)

# --8<-- [start:show]
value_norms = [values.norm(dim=-1).mean().item() for values in cache.value_cache]  # removed in 4.56
# --8<-- [end:show]
