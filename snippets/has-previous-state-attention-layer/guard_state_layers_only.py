"""Only pass indices of state layers to has_previous_state, and say which ones they are."""

from transformers import DynamicCache, PreTrainedConfig
from transformers.cache_utils import LinearAttentionCacheLayerMixin


# --8<-- [start:show]
def previous_state(cache, layer_idx):
    state_layers = [i for i, l in enumerate(cache.layers) if isinstance(l, LinearAttentionCacheLayerMixin)]
    if layer_idx < len(cache.layers) and layer_idx not in state_layers:
        raise ValueError(
            f"layer {layer_idx} is an attention layer ({type(cache.layers[layer_idx]).__name__}) and has no "
            f"conv/recurrent state; has_previous_state applies to layers {state_layers}"
        )
    return cache.has_previous_state(layer_idx)
# --8<-- [end:show]


config = PreTrainedConfig(num_hidden_layers=4, layer_types=["conv", "full_attention", "conv", "full_attention"])
previous_state(DynamicCache(config=config), 0)  # a conv layer: asked of the library
previous_state(DynamicCache(config=config), 1)
