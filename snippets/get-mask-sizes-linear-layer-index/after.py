"""Build masks for the attention layers only; linear-attention layers take no attention mask."""

import torch
from transformers import CacheLayerMixin, DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "full_attention", "linear_attention", "full_attention"],
)
cache = DynamicCache(config=config)
for idx, kind in enumerate(config.layer_types):  # a 5-token prefill
    if kind == "full_attention":
        cache.update(torch.randn(1, 8, 5, 64, device=device), torch.randn(1, 8, 5, 64, device=device), idx)
    else:
        cache.update_recurrent_state(torch.randn(1, 4, 16, 16, device=device), idx)

# --8<-- [start:show]
query_length = 1  # next decoding step
masks = {}
for layer_idx, layer in enumerate(cache.layers):
    if not isinstance(layer, CacheLayerMixin):
        continue  # a linear-attention layer: no keys/values, no mask
    kv_length, kv_offset = cache.get_mask_sizes(query_length, layer_idx)
    masks[layer_idx] = torch.ones(query_length, kv_length, dtype=torch.bool, device=device)
# --8<-- [end:show]
assert {idx: mask.shape[-1] for idx, mask in masks.items()} == {1: 6, 3: 6}
