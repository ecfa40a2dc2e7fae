"""The same pre-allocation, with head_dim taken from the config the cache was built from."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=12, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)
cache = DynamicCache(config=config)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
# An int is broadcast to every layer; config.head_dim is hidden_size // num_attention_heads.
cache.early_initialization(
    batch_size=2,
    num_heads=config.num_key_value_heads,
    head_dim=config.head_dim,
    dtype=torch.bfloat16,
    device=device,
)
assert cache.is_initialized
# --8<-- [end:show]

keys, values = cache.update(
    torch.zeros(2, 8, 3, 128, dtype=torch.bfloat16, device=device),
    torch.zeros(2, 8, 3, 128, dtype=torch.bfloat16, device=device),
    layer_idx=0,
)
assert cache.get_seq_length() == 3
