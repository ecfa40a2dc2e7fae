"""Custom hybrid modeling code that numbers its linear-attention blocks on their own."""

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
for n, _ in enumerate(linear_blocks):
    state = torch.randn(2, 4, 16, 16, device=device)  # [batch, heads, key_dim, value_dim]
    # Bug: `n` counts linear blocks only (0, 1); the cache is indexed by model layer (0, 2).
    cache.update_recurrent_state(state, layer_idx=n)
# --8<-- [end:show]
