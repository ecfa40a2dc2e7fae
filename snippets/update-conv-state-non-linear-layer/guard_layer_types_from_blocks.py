"""Derive `layer_types` from the blocks the model actually has, so the two cannot drift apart."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
model_blocks = ["conv", "attention", "conv", "attention"]  # e.g. [block.kind for block in model.layers]

# --8<-- [start:show]
CACHE_LAYER_TYPE = {"conv": "conv", "attention": "full_attention"}
config = PreTrainedConfig(
    num_hidden_layers=len(model_blocks),
    layer_types=[CACHE_LAYER_TYPE[kind] for kind in model_blocks],
)
cache = DynamicCache(config=config)

for idx, kind in enumerate(model_blocks):
    if kind == "conv":
        cache.update_conv_state(torch.randn(2, 256, 3, device=device), layer_idx=idx)
# --8<-- [end:show]

assert cache.has_previous_state()
