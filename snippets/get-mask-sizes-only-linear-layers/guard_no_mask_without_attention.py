"""Skip attention-mask work entirely for caches without attention layers."""

import torch
from transformers import CacheLayerMixin, DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def next_mask(cache, query_length):
    """A boolean mask for the next step, or None when no layer attends over the cache."""
    if not any(isinstance(layer, CacheLayerMixin) for layer in cache.layers):
        return None  # only conv / recurrent-state layers: nothing to mask
    kv_length, kv_offset = cache.get_mask_sizes(query_length, 0)
    return torch.ones(query_length, kv_length, dtype=torch.bool, device=device)
# --8<-- [end:show]


def prefilled(layer_types):
    cache = DynamicCache(config=PreTrainedConfig(num_hidden_layers=len(layer_types), layer_types=layer_types))
    for idx, kind in enumerate(layer_types):
        if kind == "conv":
            cache.update_conv_state(torch.randn(1, 256, 3, device=device), idx)
        else:
            cache.update(torch.randn(1, 8, 5, 64, device=device), torch.randn(1, 8, 5, 64, device=device), idx)
    return cache


assert next_mask(prefilled(["conv", "conv"]), 1) is None
assert next_mask(prefilled(["conv", "conv", "full_attention"]), 1).shape == (1, 6)
