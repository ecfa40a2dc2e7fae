"""Export after head pruning: the surviving KV-head count comes from a mask, as a tensor."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)

# --8<-- [start:show]
kv_head_mask = torch.tensor([1, 1, 0, 1, 1, 0, 1, 1])  # two KV heads pruned
num_kv_heads = kv_head_mask.sum()  # tensor(6): a 0-d tensor, not an int

cache.early_initialization(
    batch_size=1, num_heads=num_kv_heads, head_dim=64, dtype=torch.float32, device=device
)
# --8<-- [end:show]
