"""One cache per batch size: a cache is only updated with states of its own batch."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
caches = {}


def cache_for(batch_size):
    if batch_size not in caches:
        caches[batch_size] = DynamicCache()
    return caches[batch_size]


for batch_size in (1, 2, 1):
    states = torch.zeros(batch_size, 8, 1, 64, device=device)
    cache_for(batch_size).update(states, states, layer_idx=0)
# --8<-- [end:show]

assert caches[1].get_seq_length() == 2 and caches[2].get_seq_length() == 1
