"""Code written for 4.38-4.55 that passes StaticCache's arguments by position, as the 4.38 docs showed."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
cache = StaticCache(config, 1, 16, "cpu", torch.float32)  # config, max_batch_size, max_cache_len, device, dtype
# --8<-- [end:show]
