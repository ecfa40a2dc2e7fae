"""The same loop, passing each block's index in the whole model."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"

config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
)
cache = DynamicCache(config=config)

# --8<-- [start:show]
linear_blocks = [i for i, kind in enumerate(config.layer_types) if kind == "linear_attention"]  # [0, 2]
for layer_idx in linear_blocks:
    state = torch.randn(2, 4, 16, 16, device=device)  # [batch, heads, key_dim, value_dim]
    cache.update_recurrent_state(state, layer_idx=layer_idx)
# --8<-- [end:show]

assert cache.layers[2].recurrent_states[0].shape == (2, 4, 16, 16)
