"""Check the cache's layer kinds against the model's blocks right after building it."""

import torch
from transformers import DynamicCache, PreTrainedConfig
from transformers.cache_utils import LinearAttentionCacheLayerMixin

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def check_cache_layers(cache, block_kinds):
    """`block_kinds`: what the model runs at each index, "conv"/"linear" or "attention"."""
    for idx, (kind, layer) in enumerate(zip(block_kinds, cache.layers)):
        stateful = isinstance(layer, LinearAttentionCacheLayerMixin)
        if (kind in ("conv", "linear")) != stateful:
            raise TypeError(
                f"cache layer {idx} is a {type(layer).__name__}, but the model runs a {kind} block there; "
                "set config.layer_types before building the cache"
            )


model_blocks = ["conv", "attention", "conv", "attention"]
typed = DynamicCache(config=PreTrainedConfig(num_hidden_layers=4, layer_types=["conv", "full_attention"] * 2))
check_cache_layers(typed, model_blocks)
conv_states = torch.randn(1, 64, 10, device=device)
typed.update_conv_state(conv_states, 0, conv_kernel_size=4)  # a conv layer: stored by the library
cache = DynamicCache(config=PreTrainedConfig(num_hidden_layers=4))  # layer_types missing
check_cache_layers(cache, model_blocks)  # fails here, before any forward pass
# --8<-- [end:show]
