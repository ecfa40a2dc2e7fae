"""Fill a cache from (key, value) pairs through `update`, the one method every release has."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
def cache_from_pairs(pairs, cache=None):
    cache = DynamicCache() if cache is None else cache
    for layer_idx, (keys, values) in enumerate(pairs):
        cache.update(keys, values, layer_idx)  # grows the layer list as needed, on 4.36 - 5.x
    return cache
# --8<-- [end:show]


cache = cache_from_pairs(tuple((torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device))
                               for _ in range(2)))
assert cache.get_seq_length() == 4
