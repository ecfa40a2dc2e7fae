"""Keep one cache and one compiled shape: pad every request to the cache's batch size."""

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
CACHE_BATCH = 2
cache = StaticCache(config=config, max_cache_len=16)


def serve(batch):
    rows = batch.shape[0]
    if rows > CACHE_BATCH:
        raise ValueError(f"a batch of {rows} does not fit the static cache built for {CACHE_BATCH}")
    padded = torch.cat([batch, batch[:1].repeat(CACHE_BATCH - rows, 1)]) if rows < CACHE_BATCH else batch
    cache.reset()
    forward(cache, padded)
    return rows  # the caller keeps only the first `rows` results
# --8<-- [end:show]


serve(torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]]))
serve(torch.tensor([[1, 2, 3, 4]]))
