"""With `layer_types` declared, the cache has state layers and can answer."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["conv", "full_attention", "conv", "full_attention"],
)
cache = DynamicCache(config=config)

assert cache.has_previous_state() is False  # prefill: nothing stored yet
for idx in (0, 2):
    cache.update_conv_state(torch.randn(2, 256, 3, device=device), layer_idx=idx)
assert cache.has_previous_state() is True  # the next step is decoding
# --8<-- [end:show]
