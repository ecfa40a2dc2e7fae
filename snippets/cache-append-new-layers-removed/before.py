"""A library's `from_legacy_cache` (flash-linear-attention style) written for 4.54-4.55, growing the cache by hand."""

import inspect

import torch
from transformers import Cache
from transformers.cache_utils import DynamicLayer

legacy = tuple((torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)) for _ in range(2))
if "layer_classes" in inspect.signature(Cache.__init__).parameters:  # 4.54-4.55
    cache = Cache(layer_classes=DynamicLayer)
else:  # 4.56+
    cache = Cache(layer_class_to_replicate=DynamicLayer)

# --8<-- [start:show]
for layer_idx, (keys, values) in enumerate(legacy):
    cache.append_new_layers(layer_idx)  # existed only in 4.54-4.55
    cache.layers[layer_idx].update(keys, values)
# --8<-- [end:show]
