"""Build it bare: a DynamicCache appends one layer per `update` in every release (4.56+ also take `config=`)."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
cache = DynamicCache()
for layer_idx in range(config.num_hidden_layers):
    cache.update(torch.randn(1, 2, 3, 16), torch.randn(1, 2, 3, 16), layer_idx)
# --8<-- [end:show]
assert len(cache) == 2
