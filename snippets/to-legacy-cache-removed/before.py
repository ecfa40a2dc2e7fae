"""Code that turns the model's cache back into the tuple format, to store it, concatenate it or hand it on."""

import torch
from transformers import DynamicCache

cache = DynamicCache()  # what a model's forward returns as `past_key_values` (4.48+)
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), layer_idx)

# --8<-- [start:show]
legacy = cache.to_legacy_cache()  # gone since transformers 5.0
keys0, values0 = legacy[0]
# --8<-- [end:show]
