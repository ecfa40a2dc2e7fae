"""Build the cache from the model's layer types, so each layer has an indexer key cache."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
config = PreTrainedConfig(num_hidden_layers=2, layer_types=["deepseek_sparse_attention"] * 2)
cache = DynamicCache(config=config)  # one DynamicIndexedLayer per layer

keys, values = cache.update(
    torch.randn(1, 8, 6, 64, device=device), torch.randn(1, 8, 6, 64, device=device), layer_idx=0
)
index_keys = cache.update_indexer(torch.randn(1, 6, 32, device=device), layer_idx=0)  # [batch, seq, index_dim]
# --8<-- [end:show]

assert index_keys.shape == (1, 6, 32)
index_keys = cache.update_indexer(torch.randn(1, 1, 32, device=device), layer_idx=0)
assert index_keys.shape == (1, 7, 32)
