"""Check the cache type at your own API boundary, with a message that says what to do."""

import torch
from transformers import Cache


# --8<-- [start:show]
def check_cache(past_key_values):
    if past_key_values is not None and not isinstance(past_key_values, Cache):
        raise TypeError(
            f"past_key_values must be a transformers Cache, got {type(past_key_values).__name__}; "
            "put the (keys, values) pairs into a DynamicCache with cache.update(keys, values, layer_idx)"
        )
    return past_key_values
# --8<-- [end:show]


check_cache(tuple((torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)) for _ in range(2)))
