"""Build each distinct mask once, from a representative attention layer of each kind."""

import torch
from transformers import CacheLayerMixin, DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
config = PreTrainedConfig(
    num_hidden_layers=4,
    sliding_window=3,
    layer_types=["linear_attention", "full_attention", "linear_attention", "sliding_attention"],
)
cache = DynamicCache(config=config)
for idx, kind in enumerate(config.layer_types):  # a 5-token prefill
    if kind in ("full_attention", "sliding_attention"):
        cache.update(torch.randn(1, 8, 5, 64, device=device), torch.randn(1, 8, 5, 64, device=device), idx)
    else:
        cache.update_recurrent_state(torch.randn(1, 4, 16, 16, device=device), idx)

# --8<-- [start:show]
# One representative attention layer per attention kind (full, sliding): the same
# pattern models use to share a mask between layers of the same kind.
first_of_kind = {}
for layer_idx, layer in enumerate(cache.layers):
    if isinstance(layer, CacheLayerMixin):
        first_of_kind.setdefault(layer.is_sliding, layer_idx)

mask_sizes = {
    ("sliding" if sliding else "full"): cache.get_mask_sizes(1, layer_idx)
    for sliding, layer_idx in first_of_kind.items()
}
# --8<-- [end:show]
print(mask_sizes)
assert set(mask_sizes) == {"full", "sliding"}
