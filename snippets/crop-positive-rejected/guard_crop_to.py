"""`crop_to(cache, n)`: absolute-length semantics on every release, with its own error for a bad target."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def crop_to(cache, length):
    current = int(cache.get_seq_length())
    if not 0 <= length <= current:
        raise ValueError(f"cannot crop a cache of {current} tokens to {length}")
    if length < current:
        cache.crop(length - current)  # negative: number of tokens to remove
# --8<-- [end:show]


cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 10, 16, device=device), torch.randn(1, 2, 10, 16, device=device), layer_idx)
crop_to(cache, 7)
assert cache.get_seq_length() == 7
