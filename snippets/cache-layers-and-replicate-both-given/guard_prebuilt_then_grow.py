"""Get 'pre-built layers, then grow' with a small subclass that passes only `layers` to Cache."""

import torch
from transformers.cache_utils import Cache, DynamicLayer, DynamicSlidingWindowLayer


# --8<-- [start:show]
class GrowingCache(Cache):
    """Starts from pre-built layers and appends `grow_with()` layers for indices past the end."""

    def __init__(self, layers, grow_with):
        super().__init__(layers=list(layers))  # exactly one of the two arguments
        self.grow_with = grow_with

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        while len(self.layers) <= layer_idx:
            self.layers.append(self.grow_with())
        return super().update(key_states, value_states, layer_idx, *args, **kwargs)


cache = GrowingCache([DynamicSlidingWindowLayer(sliding_window=4096) for _ in range(2)], grow_with=DynamicLayer)
# --8<-- [end:show]

device = "cuda" if torch.cuda.is_available() else "cpu"
for layer_idx in range(4):
    cache.update(torch.zeros(1, 8, 5, 64, device=device), torch.zeros(1, 8, 5, 64, device=device), layer_idx)
assert [type(layer).__name__ for layer in cache.layers] == [
    "DynamicSlidingWindowLayer", "DynamicSlidingWindowLayer", "DynamicLayer", "DynamicLayer"
]
