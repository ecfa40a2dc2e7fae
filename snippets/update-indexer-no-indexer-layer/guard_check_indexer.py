"""Refuse a cache without indexer layers when the sparse-attention model starts, not mid-forward."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def require_indexed_cache(cache, num_layers):
    """Call once before the first forward of a sparse-attention (indexer) model."""
    indexed = sum(hasattr(layer, "update_indexer") for layer in cache.layers)
    if indexed < num_layers:
        raise TypeError(
            f"this model needs an indexer key cache at each of its {num_layers} layers, but the cache has "
            f"{indexed} indexed layers; build it with DynamicCache(config=model.config) "
            "or StaticCache(config=model.config, max_cache_len=...)"
        )


indexed = DynamicCache(config=PreTrainedConfig(num_hidden_layers=2, layer_types=["deepseek_sparse_attention"] * 2))
require_indexed_cache(indexed, num_layers=2)
indexed.update(torch.randn(1, 8, 6, 64, device=device), torch.randn(1, 8, 6, 64, device=device), layer_idx=0)
indexed.update_indexer(torch.randn(1, 6, 32, device=device), layer_idx=0)  # an indexed layer: stored by the library
require_indexed_cache(DynamicCache(), num_layers=2)  # a bare DynamicCache() would grow plain layers
# --8<-- [end:show]
