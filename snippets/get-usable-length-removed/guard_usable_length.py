"""A version-tolerant `usable_length`: the old method where it exists, its 4.36 definition elsewhere."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def usable_length(cache, new_seq_length, layer_idx=0):
    """What Cache.get_usable_length(new_seq_length, layer_idx) returned in 4.36-4.53."""
    method = getattr(cache, "get_usable_length", None)
    if method is not None:
        return method(new_seq_length, layer_idx)
    previous = cache.get_seq_length(layer_idx)
    max_length = cache.get_max_cache_shape() if hasattr(cache, "get_max_cache_shape") else cache.get_max_length()
    if max_length is not None and max_length > 0 and previous + new_seq_length > max_length:
        return max_length - new_seq_length
    return previous
# --8<-- [end:show]


cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
assert usable_length(cache, 1, 0) == 4
