"""Assisted generation: a static cache sized from the small draft model, used by the target model."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
target_config = LlamaConfig(num_hidden_layers=8, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
draft_config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
cache = StaticCache(config=draft_config, max_cache_len=128)  # 2 layers: the wrong config

# The 8-layer target model's prefill: each decoder layer caches its keys and values.
for layer_idx in range(target_config.num_hidden_layers):
    k = torch.randn(1, 8, 4, 64, device=device)
    cache.update(k, torch.randn_like(k), layer_idx=layer_idx)
# --8<-- [end:show]
