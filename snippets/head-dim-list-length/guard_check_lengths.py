"""Check per-layer lists against the cache before calling, with a message that names the culprit."""

import torch
from transformers import DynamicCache, LlamaConfig


# --8<-- [start:show]
def early_initialize(cache, batch_size, num_heads, head_dim, dtype, device):
    layers = len(cache.layers)
    for name, value in (("num_heads", num_heads), ("head_dim", head_dim)):
        if not isinstance(value, int) and len(value) != layers:
            raise ValueError(
                f"{name} has {len(value)} values but the cache has {layers} layers; "
                "pass one int, or exactly one value per layer"
            )
    cache.early_initialization(batch_size, num_heads, head_dim, dtype, device)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=12, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)
cache = DynamicCache(config=config)
early_initialize(DynamicCache(config=config), 2, num_heads=8, head_dim=128, dtype=torch.bfloat16,
                 device="cpu")  # one int for every layer: allocated by the library
early_initialize(cache, 2, num_heads=8, head_dim=[128, 128], dtype=torch.bfloat16, device="cpu")
