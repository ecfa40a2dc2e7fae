"""Kernel glue (IPEX style) that allocates its buffers in the static cache's dtype."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
try:
    cache = StaticCache(config=config, max_cache_len=16)  # 4.56 and later
except TypeError:  # 4.38 - 4.55 want the batch size, device and dtype up front
    cache = StaticCache(config=config, max_batch_size=1, max_cache_len=16, device="cpu", dtype=torch.float32)

# --8<-- [start:show]
scores = torch.zeros(1, config.num_attention_heads, 1, 16, dtype=cache.dtype)  # StaticCache.dtype: gone since 4.5x
# --8<-- [end:show]
