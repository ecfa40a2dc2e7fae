"""Stop with a clear message when a cache has no layer that counts tokens."""

import torch
from transformers import CacheLayerMixin, DynamicCache, PreTrainedConfig


# --8<-- [start:show]
def past_length(cache):
    if not any(isinstance(layer, CacheLayerMixin) for layer in cache.layers):
        kinds = sorted({type(layer).__name__ for layer in cache.layers})
        raise RuntimeError(
            f"this cache only has {kinds} layers, which keep no token count; "
            "count the tokens you feed the model yourself, or keep an attention layer in the model"
        )
    return cache.get_seq_length()
# --8<-- [end:show]


config = PreTrainedConfig(num_hidden_layers=2, layer_types=["linear_attention"] * 2)
cache = DynamicCache(config=config)
cache.update_recurrent_state(torch.randn(1, 4, 16, 16), 0)
mixed = DynamicCache(config=PreTrainedConfig(num_hidden_layers=2, layer_types=["linear_attention", "full_attention"]))
past_length(mixed)  # with an attention layer: counted by the library
past_length(cache)
