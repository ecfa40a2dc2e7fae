"""Code written for 4.38-5.19 that reads a StaticCache's capacity from its `max_cache_len` attribute."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
cache = StaticCache(config=config, max_cache_len=16)

# --8<-- [start:show]
room = cache.max_cache_len - 12  # removed in transformers 5.20
# --8<-- [end:show]
