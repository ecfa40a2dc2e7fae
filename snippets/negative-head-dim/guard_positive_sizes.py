"""Refuse negative or zero sizes with a message that names the argument."""

import torch
from transformers import LlamaConfig, StaticCache


# --8<-- [start:show]
def early_initialize(cache, batch_size, num_heads, head_dim, dtype, device):
    for name, value in (("batch_size", batch_size), ("num_heads", num_heads), ("head_dim", head_dim)):
        values = value if isinstance(value, (list, tuple)) else [value]
        if any(int(v) < 1 for v in values):
            raise ValueError(f"early_initialization needs positive sizes, got {name}={value}; "
                             "nothing is inferred, pass the actual size")
    cache.early_initialization(batch_size, num_heads, head_dim, dtype, device)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)
early_initialize(StaticCache(config=config, max_cache_len=64), 1, 8, 64, torch.float32, "cpu")  # allocated
early_initialize(cache, cache.batch_size, 8, 64, torch.float32, "cpu")  # batch_size is -1 before allocation
