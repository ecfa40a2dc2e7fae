"""Without a config: a cache that grows indexed layers instead of plain ones."""

import torch
from transformers import Cache, DynamicIndexedLayer

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
cache = Cache(layer_class_to_replicate=DynamicIndexedLayer)  # like DynamicCache(), with indexer caches

for layer_idx in range(2):
    cache.update(torch.randn(1, 8, 6, 64, device=device), torch.randn(1, 8, 6, 64, device=device), layer_idx)
    cache.update_indexer(torch.randn(1, 6, 32, device=device), layer_idx=layer_idx)
# --8<-- [end:show]

assert cache.get_seq_length() == 6
