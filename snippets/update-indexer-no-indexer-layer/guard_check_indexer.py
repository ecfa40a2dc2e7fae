"""Refuse a cache without indexer layers when the sparse-attention model starts, not mid-forward."""

from transformers import DynamicCache


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


require_indexed_cache(DynamicCache(), num_layers=2)  # a bare DynamicCache() would grow plain layers
# --8<-- [end:show]
