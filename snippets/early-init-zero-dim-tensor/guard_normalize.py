"""Normalize per-layer size arguments to what early_initialization accepts: an int or a list of ints."""

import numbers

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def as_sizes(value):
    """int, numpy integer or 0-d tensor -> int; 1-d tensor or sequence -> list of ints."""
    if isinstance(value, torch.Tensor):
        return int(value) if value.dim() == 0 else [int(v) for v in value.tolist()]
    if isinstance(value, numbers.Integral):
        return int(value)
    return [int(v) for v in value]


def early_initialize(cache, batch_size, num_heads, head_dim, dtype, device):
    cache.early_initialization(int(batch_size), as_sizes(num_heads), as_sizes(head_dim), dtype, device)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)
kv_head_mask = torch.tensor([1, 1, 0, 1, 1, 0, 1, 1])
early_initialize(cache, 1, kv_head_mask.sum(), torch.tensor(64), torch.float32, device)
assert cache.layers[0].keys.shape == (1, 6, 64, 64)
