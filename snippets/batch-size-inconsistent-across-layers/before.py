"""A StaticCache smoke-tested on one sequence, then pre-allocated for a batch of four."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)

# --8<-- [start:show]
# Smoke test: run one sequence through the first decoder layer (allocates layer 0 for batch 1).
cache.update(torch.randn(1, 8, 3, 64, device=device), torch.randn(1, 8, 3, 64, device=device), layer_idx=0)

# Real run: pre-allocate for a batch of 4. Layers that are already allocated are skipped!
cache.early_initialization(batch_size=4, num_heads=8, head_dim=64, dtype=torch.float32, device=device)
print("batch size:", cache.batch_size)
# --8<-- [end:show]
