"""Pass it positionally: negative = number of tokens to remove, on every release since 4.42."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 10, 16, device=device), torch.randn(1, 2, 10, 16, device=device), layer_idx)

# --8<-- [start:show]
cache.crop(-3)
# --8<-- [end:show]
assert cache.get_seq_length() == 7
