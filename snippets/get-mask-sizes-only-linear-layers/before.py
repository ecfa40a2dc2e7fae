"""A two-layer debug model cut from a convolution/attention hybrid: only convolutions remain."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
pattern = ["conv", "conv", "full_attention"] * 8  # the full model's layer pattern

# --8<-- [start:show]
config = PreTrainedConfig(num_hidden_layers=2, layer_types=pattern[:2])  # shrunk for debugging
cache = DynamicCache(config=config)
for idx in range(2):  # prefill
    cache.update_conv_state(torch.randn(1, 256, 3, device=device), idx)

# The model's mask helper asks layer 0 how large the next attention mask must be.
kv_length, kv_offset = cache.get_mask_sizes(1, 0)
# --8<-- [end:show]
