"""Each model gets a cache built from its own config."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
target_config = LlamaConfig(num_hidden_layers=8, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
draft_config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
target_cache = StaticCache(config=target_config, max_cache_len=128)  # 8 layers
draft_cache = StaticCache(config=draft_config, max_cache_len=128)  # 2 layers, for the draft model

for layer_idx in range(target_config.num_hidden_layers):
    k = torch.randn(1, 8, 4, 64, device=device)
    target_cache.update(k, torch.randn_like(k), layer_idx=layer_idx)
# --8<-- [end:show]
assert len(target_cache) == 8 and int(target_cache.get_seq_length()) == 4
