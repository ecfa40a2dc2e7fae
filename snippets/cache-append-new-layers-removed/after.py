"""4.56+: `Cache.update` appends the layers it needs itself (from `layer_class_to_replicate`)."""

import torch
from transformers import Cache
from transformers.cache_utils import DynamicLayer

device = "cuda" if torch.cuda.is_available() else "cpu"

legacy = tuple((torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device)) for _ in range(2))
cache = Cache(layer_class_to_replicate=DynamicLayer)

# --8<-- [start:show]
for layer_idx, (keys, values) in enumerate(legacy):
    cache.update(keys, values, layer_idx)
# --8<-- [end:show]
assert len(cache.layers) == 2 and cache.get_seq_length() == 4
