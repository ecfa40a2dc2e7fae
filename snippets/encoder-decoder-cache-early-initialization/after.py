"""Pre-allocate the two sub-caches, each with its own layers and length."""

import torch
from transformers import EncoderDecoderCache, StaticCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

past_key_values = EncoderDecoderCache(
    StaticCache(config=config, max_cache_len=32),
    StaticCache(config=config, max_cache_len=10),
)

# --8<-- [start:show]
for cache in (past_key_values.self_attention_cache, past_key_values.cross_attention_cache):
    cache.early_initialization(
        batch_size=1, num_heads=config.num_heads, head_dim=config.d_kv, dtype=torch.float32, device=device
    )
# --8<-- [end:show]

assert past_key_values.self_attention_cache.layers[0].keys.shape == (1, 4, 32, 16)
assert past_key_values.cross_attention_cache.layers[0].keys.shape == (1, 4, 10, 16)
