"""Since 4.56 a static cache learns its dtype from the first states written: ask the layer after the prefill."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
cache = StaticCache(config=config, max_cache_len=16)

# --8<-- [start:show]
prefill = torch.randn(1, 2, 4, 16, device=device)
cache.update(prefill, torch.randn(1, 2, 4, 16, device=device), 0)  # the prefill fills layer 0
scores = torch.zeros(1, config.num_attention_heads, 1, 16, dtype=cache.layers[0].dtype, device=device)
# --8<-- [end:show]
assert scores.dtype == torch.float32
