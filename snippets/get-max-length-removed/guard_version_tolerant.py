"""Ask for the cache's maximum length under whichever name the installed release has."""

import torch
from transformers import DynamicCache, LlamaConfig, StaticCache


# --8<-- [start:show]
def max_cache_length(cache):
    """The cache's capacity in tokens, or None when it can grow without limit (any release 4.36 - 5.x)."""
    for name in ("get_max_cache_shape", "get_max_length"):  # 4.46-5.19 / 4.36-4.48 and 5.13+
        method = getattr(cache, name, None)
        if method is not None:
            value = method()
            return None if value is None or value < 0 else int(value)
    return None
# --8<-- [end:show]


cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
assert max_cache_length(cache) is None
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
try:
    static = StaticCache(config=config, max_cache_len=8)  # 4.56+
except TypeError:
    static = StaticCache(config=config, max_batch_size=1, max_cache_len=8, device="cpu")  # older signature
assert max_cache_length(static) == 8
