"""Ask only the attention layers, which are the ones that track a sequence length."""

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
        cache.update_conv_state(torch.randn(1, 512, 4, device=device), idx)

# --8<-- [start:show]
lengths = {
    layer_idx: cache.get_seq_length(layer_idx)
    for layer_idx, layer in enumerate(cache.layers)
    if isinstance(layer, CacheLayerMixin)  # attention layers (hybrids included)
}
print("tokens cached per attention layer:", lengths)
print("tokens cached:", cache.get_seq_length())  # the default asks the first attention layer
# --8<-- [end:show]
assert lengths == {1: 5, 3: 5}
