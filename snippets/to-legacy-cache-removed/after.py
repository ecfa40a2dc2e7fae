"""Iterate the cache: each layer gives its keys and values (and, from 5.0, a third item: the sliding window)."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device), layer_idx)

# --8<-- [start:show]
legacy = tuple((keys, values) for keys, values, *_ in cache)
keys0, values0 = legacy[0]
# --8<-- [end:show]
assert len(legacy) == 2 and keys0.shape == (1, 2, 4, 16)
