"""Assisted / speculative decoding code that rolls the cache back to an absolute length (the 4.x meaning of crop)."""

import torch
from transformers import DynamicCache

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 10, 16), torch.randn(1, 2, 10, 16), layer_idx)
accepted_length = 7  # draft tokens 8-10 were rejected

# --8<-- [start:show]
cache.crop(accepted_length)  # 4.42-5.19: keep the first 7 positions
# --8<-- [end:show]
