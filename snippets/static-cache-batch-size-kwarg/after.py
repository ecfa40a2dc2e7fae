"""4.51-4.55 call it `max_batch_size` again."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
cache = StaticCache(config=config, max_batch_size=1, max_cache_len=16, device="cpu", dtype=torch.float32)
# --8<-- [end:show]
