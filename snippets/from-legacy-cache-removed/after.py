"""Pass the per-layer (key, value) pairs to the DynamicCache constructor (it fills the cache from 4.56; also 4.50-4.53)."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
legacy = tuple((torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device)) for _ in range(2))
cache = DynamicCache(legacy)
# --8<-- [end:show]
assert len(cache) == 2 and cache.get_seq_length() == 4
