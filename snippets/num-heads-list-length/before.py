"""Pre-allocating a cache with per-layer KV head counts written for another model."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=12, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)
cache = StaticCache(config=config, max_cache_len=64)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
# Two head counts for a 12-layer cache: the list was meant to have one value per layer.
cache.early_initialization(
    batch_size=1,
    num_heads=[8, 8],
    head_dim=128,
    dtype=torch.float16,
    device=device,
)
# --8<-- [end:show]
