"""Accept an int or a per-layer list, and say which argument is wrong if the length is off."""

import torch
from transformers import LlamaConfig, StaticCache


# --8<-- [start:show]
def per_layer(name, value, layers):
    if isinstance(value, int):
        return [value] * layers
    values = list(value)
    if len(values) != layers:
        raise ValueError(f"{name} needs one value per cache layer: got {len(values)}, the cache has {layers}")
    return values


def early_initialize(cache, batch_size, num_heads, head_dim, dtype, device):
    layers = len(cache.layers)
    cache.early_initialization(
        batch_size,
        per_layer("num_heads", num_heads, layers),
        per_layer("head_dim", head_dim, layers),
        dtype,
        device,
    )
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=12, num_attention_heads=8, num_key_value_heads=8, hidden_size=1024)
cache = StaticCache(config=config, max_cache_len=64)
early_initialize(StaticCache(config=config, max_cache_len=64), 1, num_heads=8, head_dim=128, dtype=torch.float16,
                 device="cpu")  # one value for every layer: allocated by the library
early_initialize(cache, 1, num_heads=[8, 8], head_dim=128, dtype=torch.float16, device="cpu")
