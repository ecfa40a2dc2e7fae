"""Pass the real head size, taken from the config the cache was built from."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)

# --8<-- [start:show]
head_dim = config.head_dim  # hidden_size // num_attention_heads = 64 when not set explicitly
cache.early_initialization(
    batch_size=1, num_heads=config.num_key_value_heads, head_dim=head_dim, dtype=torch.float32, device=device
)
# --8<-- [end:show]
assert cache.layers[0].keys.shape == (1, 8, 64, 64)
