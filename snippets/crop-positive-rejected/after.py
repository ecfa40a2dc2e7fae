"""Pass a negative number: how many tokens to remove from the end (understood since 4.42)."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 10, 16, device=device), torch.randn(1, 2, 10, 16, device=device), layer_idx)
accepted_length = 7

# --8<-- [start:show]
cache.crop(-(cache.get_seq_length() - accepted_length))  # remove the 3 rejected positions
# --8<-- [end:show]
assert cache.get_seq_length() == 7
