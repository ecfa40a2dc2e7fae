"""Checking, layer by layer, that a hybrid model's cache has been warmed up by a prefill."""

import torch
from transformers import DynamicCache, PreTrainedConfig

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
warm = all(cache.has_previous_state(layer_idx) for layer_idx in range(len(cache)))
# --8<-- [end:show]
