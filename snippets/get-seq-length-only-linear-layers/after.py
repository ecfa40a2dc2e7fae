"""Shrink the hybrid by whole periods, so the test model keeps an attention layer."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
pattern = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 12

# --8<-- [start:show]
period = 4  # three linear-attention layers, then one full-attention layer
num_layers = period  # the smallest test model that still has an attention layer
config = PreTrainedConfig(num_hidden_layers=num_layers, layer_types=pattern[:num_layers])
cache = DynamicCache(config=config)
for idx, kind in enumerate(config.layer_types):  # a 5-token prefill
    if kind == "full_attention":
        cache.update(torch.randn(1, 8, 5, 64, device=device), torch.randn(1, 8, 5, 64, device=device), idx)
    else:
        cache.update_recurrent_state(torch.randn(1, 4, 16, 16, device=device), idx)

past_length = cache.get_seq_length()  # answered by layer 3, the attention layer
# --8<-- [end:show]
assert past_length == 5
