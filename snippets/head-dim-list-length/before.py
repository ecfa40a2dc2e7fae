"""Pre-allocating a cache for export with a head_dim list copied from a 2-layer test model."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=12, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)
cache = DynamicCache(config=config)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
# One head_dim per layer was intended, but the list has 2 values for a 12-layer cache.
cache.early_initialization(
    batch_size=2,
    num_heads=8,
    head_dim=[128, 128],
    dtype=torch.bfloat16,
    device=device,
)
# --8<-- [end:show]
