"""The same custom cache, telling the base class which layer to grow for each new index."""

import torch
from transformers import Cache, DynamicLayer

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class CountingCache(Cache):
    """Counts how many tokens layer 0 has stored, e.g. for logging."""

    def __init__(self):
        # Grow one DynamicLayer per new layer index, like a bare DynamicCache().
        super().__init__(layer_class_to_replicate=DynamicLayer)
        self.tokens_stored = 0

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        if layer_idx == 0:
            self.tokens_stored += key_states.shape[-2]
        return super().update(key_states, value_states, layer_idx, *args, **kwargs)


cache = CountingCache()
# --8<-- [end:show]

for layer_idx in range(2):
    cache.update(torch.zeros(1, 8, 5, 64, device=device), torch.zeros(1, 8, 5, 64, device=device), layer_idx)
assert cache.tokens_stored == 5 and len(cache) == 2
