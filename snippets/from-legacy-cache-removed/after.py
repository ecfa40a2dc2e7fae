"""Pass the per-layer (key, value) pairs to the DynamicCache constructor (accepted since 4.47)."""

import torch
from transformers import DynamicCache

# --8<-- [start:show]
legacy = tuple((torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)) for _ in range(2))
cache = DynamicCache(legacy)
# --8<-- [end:show]
assert len(cache) == 2 and cache.get_seq_length() == 4
