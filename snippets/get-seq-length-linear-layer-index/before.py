"""Logging the cached length of every layer of a hybrid (linear + full attention) model."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
)
cache = DynamicCache(config=config)
for idx, kind in enumerate(config.layer_types):  # a 5-token prefill
    if kind == "full_attention":
        cache.update(torch.randn(1, 8, 5, 64, device=device), torch.randn(1, 8, 5, 64, device=device), idx)
    else:
        cache.update_conv_state(torch.randn(1, 512, 4, device=device), idx)

# --8<-- [start:show]
lengths = [cache.get_seq_length(layer_idx) for layer_idx in range(len(cache))]
print("tokens cached per layer:", lengths)
# --8<-- [end:show]
