"""Custom code (prefix tuning, KV compression, a vendored generate loop) reading the cache's tensor lists."""

import torch
from transformers import DynamicCache

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 6, 16), torch.randn(1, 2, 6, 16), layer_idx)

# --8<-- [start:show]
# keep only the last 4 positions of every layer (e.g. a sliding KV budget)
for layer_idx in range(len(cache)):
    cache.key_cache[layer_idx] = cache.key_cache[layer_idx][:, :, -4:]  # removed in transformers 4.56
    cache.value_cache[layer_idx] = cache.value_cache[layer_idx][:, :, -4:]
# --8<-- [end:show]
