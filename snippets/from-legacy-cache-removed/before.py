"""Code that still builds tuple caches (per layer a (key, value) pair) and converts them for the model."""

import torch
from transformers import DynamicCache

# --8<-- [start:show]
legacy = tuple((torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)) for _ in range(2))
cache = DynamicCache.from_legacy_cache(legacy)  # removed in transformers 5.0
# --8<-- [end:show]
