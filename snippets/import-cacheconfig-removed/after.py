"""4.56+: cache settings are a plain dict, passed as keywords to the cache class (or as generate's cache_config)."""

import torch
from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers import QuantizedCache

cache_config = {"backend": "quanto", "nbits": 4, "q_group_size": 16, "residual_length": 128}
cache = QuantizedCache(config=config, **cache_config)
# --8<-- [end:show]
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 3, 16), torch.randn(1, 2, 3, 16), layer_idx)
assert cache.get_seq_length() == 3
