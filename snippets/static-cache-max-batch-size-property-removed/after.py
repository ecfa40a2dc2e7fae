"""`cache.batch_size` (4.45-4.50, and again from 5.13)."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
cache = StaticCache(config=config, max_cache_len=16)
for layer_idx in range(2):
    cache.update(torch.randn(2, 2, 3, 16), torch.randn(2, 2, 3, 16), layer_idx, {"cache_position": torch.arange(3)})

# --8<-- [start:show]
rows = cache.batch_size
# --8<-- [end:show]
assert rows == 2
