"""The same pre-allocation with one KV head count for every layer."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=12, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)
cache = StaticCache(config=config, max_cache_len=64)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
# The cache stores key/value heads, so the count is num_key_value_heads, broadcast to all layers.
cache.early_initialization(
    batch_size=1,
    num_heads=config.num_key_value_heads,
    head_dim=config.head_dim,
    dtype=torch.float16,
    device=device,
)
# --8<-- [end:show]

keys = cache.layers[0].keys
assert tuple(keys.shape) == (1, 8, 64, 128) and keys.dtype == torch.float16
