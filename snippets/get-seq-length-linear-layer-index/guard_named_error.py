"""A per-layer length helper that explains which layers can answer."""

from transformers import CacheLayerMixin, DynamicCache, PreTrainedConfig


# --8<-- [start:show]
def cached_length(cache, layer_idx):
    layer = cache.layers[layer_idx]
    if not isinstance(layer, CacheLayerMixin):
        attention = [i for i, l in enumerate(cache.layers) if isinstance(l, CacheLayerMixin)]
        raise ValueError(
            f"layer {layer_idx} is a {type(layer).__name__}, which keeps a fixed-size state and no "
            f"token history; ask an attention layer instead (indices {attention})"
        )
    return cache.get_seq_length(layer_idx)
# --8<-- [end:show]


config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
)
cache = DynamicCache(config=config)
cached_length(cache, 1)  # an attention layer: counted by the library
cached_length(cache, 2)
