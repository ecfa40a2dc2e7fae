"""Keep one static cache per batch size and reset it between requests, instead of re-initializing."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"
config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)


# --8<-- [start:show]
caches = {}


def cache_for(batch_size):
    cache = caches.get(batch_size)
    if cache is None:
        cache = caches[batch_size] = StaticCache(config=config, max_cache_len=64)
        cache.early_initialization(batch_size, num_heads=8, head_dim=64, dtype=torch.float32, device=device)
    else:
        cache.reset()  # zero the buffers, keep the allocation for this batch size
    assert cache.batch_size == batch_size
    return cache
# --8<-- [end:show]


for batch_size in (1, 4, 1):
    cache = cache_for(batch_size)
    for layer_idx in range(4):
        cache.update(torch.randn(batch_size, 8, 3, 64, device=device),
                     torch.randn(batch_size, 8, 3, 64, device=device), layer_idx)
