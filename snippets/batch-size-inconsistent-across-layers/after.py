"""Use a fresh cache for each batch size: smoke tests get their own."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
smoke = StaticCache(config=config, max_cache_len=64)
smoke.update(torch.randn(1, 8, 3, 64, device=device), torch.randn(1, 8, 3, 64, device=device), layer_idx=0)

cache = StaticCache(config=config, max_cache_len=64)  # the real run starts from an empty cache
cache.early_initialization(batch_size=4, num_heads=8, head_dim=64, dtype=torch.float32, device=device)
print("batch size:", cache.batch_size)
# --8<-- [end:show]
assert cache.batch_size == 4 and smoke.batch_size == 1
cache.update(torch.randn(4, 8, 3, 64, device=device), torch.randn(4, 8, 3, 64, device=device), layer_idx=0)
