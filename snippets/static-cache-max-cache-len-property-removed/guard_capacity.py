"""Ask a cache for its capacity through whichever accessor the installed release has."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
try:
    cache = StaticCache(config=config, max_cache_len=16)  # 4.56+
except TypeError:
    cache = StaticCache(config=config, max_batch_size=1, max_cache_len=16, device="cpu")  # older signatures


# --8<-- [start:show]
def capacity(cache):
    """Positions a cache can hold, or None when it grows without limit (4.38 - 5.x)."""
    for name in ("get_max_length", "get_max_cache_shape"):  # 4.38-4.48 and 5.13+ / 4.46-5.19
        method = getattr(cache, name, None)
        if method is not None:
            value = method()
            return None if value is None or value < 0 else int(value)
    return getattr(cache, "max_cache_len", None)
# --8<-- [end:show]


assert capacity(cache) == 16
