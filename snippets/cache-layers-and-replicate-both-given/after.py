"""The same cache, with every layer built up front and passed as `layers` alone."""

import torch
from transformers.cache_utils import Cache, DynamicLayer, DynamicSlidingWindowLayer

device = "cuda" if torch.cuda.is_available() else "cpu"
num_layers = 4

# --8<-- [start:show]
# A cache built from `layers` never grows, so it needs one layer per model layer.
layers = [DynamicSlidingWindowLayer(sliding_window=4096) for _ in range(2)]
layers += [DynamicLayer() for _ in range(num_layers - 2)]
cache = Cache(layers=layers)
# --8<-- [end:show]

for layer_idx in range(num_layers):
    cache.update(
        torch.zeros(1, 8, 5, 64, device=device),
        torch.zeros(1, 8, 5, 64, device=device),
        layer_idx=layer_idx,
    )
assert len(cache) == num_layers
assert cache.get_seq_length() == 5
