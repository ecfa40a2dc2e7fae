"""Ask state layers about their state, and attention layers about their length."""

import torch
from transformers import CacheLayerMixin, DynamicCache, PreTrainedConfig
from transformers.cache_utils import LinearAttentionCacheLayerMixin

device = "cuda" if torch.cuda.is_available() else "cpu"
config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["conv", "full_attention", "conv", "full_attention"],
)
cache = DynamicCache(config=config)
for idx, kind in enumerate(config.layer_types):  # a prefill
    if kind == "conv":
        cache.update_conv_state(torch.randn(2, 256, 3, device=device), idx)
    else:
        cache.update(torch.randn(2, 8, 5, 64, device=device), torch.randn(2, 8, 5, 64, device=device), idx)

# --8<-- [start:show]
def layer_is_warm(cache, layer_idx):
    layer = cache.layers[layer_idx]
    if isinstance(layer, LinearAttentionCacheLayerMixin):
        return cache.has_previous_state(layer_idx)  # conv / recurrent state layers
    assert isinstance(layer, CacheLayerMixin)
    return cache.get_seq_length(layer_idx) > 0  # key/value attention layers


warm = all(layer_is_warm(cache, layer_idx) for layer_idx in range(len(cache)))
# --8<-- [end:show]
assert warm
