"""One StaticCache per batch size: each keeps its own buffers (and its own compiled graphs)."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=2)
head_dim = config.hidden_size // config.num_attention_heads


def forward(cache, batch):
    """Stand-in for the model's attention layers: each writes the new keys and values of the batch."""
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(batch.shape[0], config.num_key_value_heads, batch.shape[1], head_dim, device=device)
        cache.update(kv, kv, layer_idx)


# --8<-- [start:show]
caches = {}
for batch in (torch.tensor([[1, 2, 3, 4]]), torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])):
    cache = caches.setdefault(batch.shape[0], StaticCache(config=config, max_cache_len=16))
    cache.reset()
    forward(cache, batch)
# --8<-- [end:show]
assert sorted(caches) == [1, 2]
