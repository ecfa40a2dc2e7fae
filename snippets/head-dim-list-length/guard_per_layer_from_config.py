"""Build the per-layer lists from the cache itself, so their length cannot drift."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=12, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)
cache = DynamicCache(config=config)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
layers = len(cache.layers)
head_dims = [config.head_dim] * layers  # one value per layer, however many layers there are
num_heads = [config.num_key_value_heads] * layers
cache.early_initialization(2, num_heads, head_dims, torch.bfloat16, device)
# --8<-- [end:show]

assert cache.is_initialized
cache.update(
    torch.zeros(2, 8, 1, 128, dtype=torch.bfloat16, device=device),
    torch.zeros(2, 8, 1, 128, dtype=torch.bfloat16, device=device),
    layer_idx=0,
)
