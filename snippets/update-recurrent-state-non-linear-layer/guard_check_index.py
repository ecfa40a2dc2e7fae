"""Check that the index points at a linear-attention layer before writing a recurrent state."""

import torch
from transformers import DynamicCache, PreTrainedConfig
from transformers.cache_utils import LinearAttentionCacheLayerMixin

device = "cuda" if torch.cuda.is_available() else "cpu"

config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
)
cache = DynamicCache(config=config)


# --8<-- [start:show]
def store_recurrent_state(cache, state, layer_idx):
    layer = cache.layers[layer_idx]
    if not isinstance(layer, LinearAttentionCacheLayerMixin):
        stateful = [i for i, l in enumerate(cache.layers) if isinstance(l, LinearAttentionCacheLayerMixin)]
        raise IndexError(
            f"update_recurrent_state: layer {layer_idx} is a {type(layer).__name__}, not a "
            f"linear-attention layer; the linear-attention layers are {stateful}"
        )
    return cache.update_recurrent_state(state, layer_idx=layer_idx)


store_recurrent_state(cache, torch.randn(2, 4, 16, 16, device=device), layer_idx=0)  # a linear-attention layer: stored
store_recurrent_state(cache, torch.randn(2, 4, 16, 16, device=device), layer_idx=1)
# --8<-- [end:show]
