"""Turn whatever holds the past (a tuple on old releases, a Cache on new ones) into (key, value) pairs."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def as_pairs(past_key_values):
    """((keys, values), ...) per layer, from a legacy tuple or a Cache of any release 4.36 - 5.x."""
    if isinstance(past_key_values, (tuple, list)):  # already legacy
        return tuple((keys, values) for keys, values, *_ in past_key_values)
    if hasattr(past_key_values, "to_legacy_cache"):  # 4.36-4.57
        return past_key_values.to_legacy_cache()
    return tuple((keys, values) for keys, values, *_ in past_key_values)  # 5.0+
# --8<-- [end:show]


cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device), layer_idx)
pairs = as_pairs(cache)
assert len(pairs) == 2 and pairs[0][0].shape == (1, 2, 4, 16)
