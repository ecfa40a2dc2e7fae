"""The same pre-allocation, with the head count turned into a Python int."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)

# --8<-- [start:show]
kv_head_mask = torch.tensor([1, 1, 0, 1, 1, 0, 1, 1])  # two KV heads pruned
num_kv_heads = int(kv_head_mask.sum())  # 6, a Python int

cache.early_initialization(
    batch_size=1, num_heads=num_kv_heads, head_dim=64, dtype=torch.float32, device=device
)
# --8<-- [end:show]
assert cache.layers[0].keys.shape == (1, 6, 64, 64)
