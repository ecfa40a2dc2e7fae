"""A version-tolerant list of per-layer value tensors."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def value_tensors(cache):
    if hasattr(cache, "layers"):  # 4.56+
        return [layer.values for layer in cache.layers]
    return list(cache.value_cache)  # 4.36-4.55
# --8<-- [end:show]


cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16), layer_idx)
assert [v.shape[-2] for v in value_tensors(cache)] == [6, 6]
