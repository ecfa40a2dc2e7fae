"""Shrink the hybrid by whole periods, so the debug model keeps its attention layer."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
pattern = ["conv", "conv", "full_attention"] * 8  # the full model's layer pattern

# --8<-- [start:show]
config = PreTrainedConfig(num_hidden_layers=3, layer_types=pattern[:3])  # one whole period
cache = DynamicCache(config=config)
for idx, kind in enumerate(config.layer_types):  # a 5-token prefill
    if kind == "conv":
        cache.update_conv_state(torch.randn(1, 256, 3, device=device), idx)
    else:
        cache.update(torch.randn(1, 8, 5, 64, device=device), torch.randn(1, 8, 5, 64, device=device), idx)

kv_length, kv_offset = cache.get_mask_sizes(1, 0)  # layer 0 is a conv: answered by layer 2
# --8<-- [end:show]
assert (kv_length, kv_offset) == (6, 0)
