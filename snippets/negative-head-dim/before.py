"""Pre-allocating a static cache for export, with -1 meant as "infer the head size"."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)

# --8<-- [start:show]
# -1 works as "infer this dimension" in view()/reshape(), but not here.
cache.early_initialization(batch_size=1, num_heads=8, head_dim=-1, dtype=torch.float32, device=device)
# --8<-- [end:show]
