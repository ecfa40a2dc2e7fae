"""Build a DynamicCache from (key, value) pairs on any release, through `update`, which every release has."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def cache_from_pairs(pairs):
    cache = DynamicCache()
    for layer_idx, (keys, values) in enumerate(pairs):
        cache.update(keys, values, layer_idx)
    return cache
# --8<-- [end:show]


cache = cache_from_pairs(tuple((torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)) for _ in range(2)))
assert len(cache) == 2 and cache.get_seq_length() == 4
