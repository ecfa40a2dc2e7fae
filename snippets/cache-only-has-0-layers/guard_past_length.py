"""One helper for every shape `past_key_values` takes: None, a tuple of pairs, or a Cache."""

import torch
from transformers import Cache, DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def past_length(past_key_values, layer_idx=0):
    if past_key_values is None:
        return 0
    if isinstance(past_key_values, Cache):
        return int(past_key_values.get_seq_length(layer_idx))
    return past_key_values[layer_idx][0].shape[2] if len(past_key_values) > layer_idx else 0  # legacy tuples
# --8<-- [end:show]


cache = DynamicCache()
assert past_length(cache) == 0 and past_length(None) == 0
cache.update(torch.randn(1, 2, 3, 16, device=device), torch.randn(1, 2, 3, 16, device=device), 0)
assert past_length(cache) == 3
keys, values = cache[0]
assert past_length(((keys, values),)) == 3
