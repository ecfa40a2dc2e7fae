"""Code written for 4.42-5.14 that names `crop`'s argument, as the 4.x signature `crop(max_length)` had it."""

import torch
from transformers import DynamicCache

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 10, 16), torch.randn(1, 2, 10, 16), layer_idx)

# --8<-- [start:show]
cache.crop(max_length=-3)  # 5.15 renamed the parameter `tokens_to_remove` on Cache.crop
# --8<-- [end:show]
