"""Subclass DynamicCache instead of Cache: its constructor already picks the layers."""

import torch
from transformers import DynamicCache, LlamaConfig

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class CountingCache(DynamicCache):
    """Counts how many tokens layer 0 has stored, e.g. for logging."""

    def __init__(self, config=None):
        # DynamicCache passes `layers` (from a config) or `layer_class_to_replicate` (without one).
        super().__init__(config=config)
        self.tokens_stored = 0

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        if layer_idx == 0:
            self.tokens_stored += key_states.shape[-2]
        return super().update(key_states, value_states, layer_idx, *args, **kwargs)


grows_lazily = CountingCache()
from_config = CountingCache(config=LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8))
# --8<-- [end:show]

for cache in (grows_lazily, from_config):
    for layer_idx in range(2):
        cache.update(torch.zeros(1, 8, 5, 64, device=device), torch.zeros(1, 8, 5, 64, device=device), layer_idx)
    assert cache.tokens_stored == 5 and len(cache) == 2
