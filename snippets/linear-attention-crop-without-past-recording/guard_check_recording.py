"""Refuse to roll back a cache whose linear-attention layers are not recording."""

import torch
from transformers import DynamicCache, PretrainedConfig
from transformers.cache_utils import LinearAttentionCacheLayerMixin

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def rollback(cache, num_tokens):
    """Drop the last `num_tokens` tokens from every layer of `cache`."""
    not_recording = [
        idx for idx, layer in enumerate(cache.layers)
        if isinstance(layer, LinearAttentionCacheLayerMixin) and not layer.record_past
    ]
    if not_recording:
        raise RuntimeError(
            f"cannot roll back: linear-attention layers {not_recording} keep only their last "
            "convolution window; call cache.activate_past_recording() before the prefill"
        )
    cache.crop(-num_tokens)
# --8<-- [end:show]


config = PretrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
)
cache = DynamicCache(config=config)
for layer_idx in range(3):
    cache.update_conv_state(torch.randn(1, 64, 10, device=device), layer_idx, conv_kernel_size=4)
cache.update(torch.randn(1, 2, 10, 32, device=device), torch.randn(1, 2, 10, 32, device=device), 3)
recorded = DynamicCache(config=config)
recorded.activate_past_recording()
for layer_idx in range(3):
    recorded.update_conv_state(torch.randn(1, 64, 10, device=device), layer_idx, conv_kernel_size=4)
recorded.update(torch.randn(1, 2, 10, 32, device=device), torch.randn(1, 2, 10, 32, device=device), 3)
rollback(recorded, 2)  # recorded from the start: rolled back by the library
rollback(cache, 2)
