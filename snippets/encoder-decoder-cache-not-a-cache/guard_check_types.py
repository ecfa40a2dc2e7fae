"""Check both arguments before building the cache, and say what to do with raw tensors."""

import torch
from transformers import Cache, DynamicCache, EncoderDecoderCache, T5Config


# --8<-- [start:show]
def encoder_decoder_cache(self_attention_cache, cross_attention_cache):
    for name, cache in (("self_attention_cache", self_attention_cache),
                        ("cross_attention_cache", cross_attention_cache)):
        if not isinstance(cache, Cache):
            raise TypeError(
                f"{name} must be a Cache such as DynamicCache, not {type(cache).__name__}; "
                "wrap per-layer (key, value) pairs as DynamicCache(pairs)"
            )
    return EncoderDecoderCache(self_attention_cache, cross_attention_cache)
# --8<-- [end:show]


config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
pair = (torch.randn(1, 4, 10, 16), torch.randn(1, 4, 10, 16))
encoder_decoder_cache(DynamicCache(config=config), DynamicCache(config=config))  # two Caches: built by the library
encoder_decoder_cache(DynamicCache(config=config), (pair, pair))
