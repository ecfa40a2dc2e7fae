"""A factory with named, keyword-only arguments: a missing or extra cache fails at the call."""

import torch
from transformers import Cache, DynamicCache, EncoderDecoderCache


# --8<-- [start:show]
def encoder_decoder_cache(*, self_attention: Cache, cross_attention: Cache) -> EncoderDecoderCache:
    return EncoderDecoderCache(self_attention, cross_attention)
# --8<-- [end:show]


device = "cuda" if torch.cuda.is_available() else "cpu"
past_key_values = encoder_decoder_cache(self_attention=DynamicCache(), cross_attention=DynamicCache())
keys = torch.randn(1, 4, 1, 16, device=device)
past_key_values.self_attention_cache.update(keys, keys, layer_idx=0)

# Forgetting the cross-attention cache is reported by name, before any cache is built:
encoder_decoder_cache(self_attention=DynamicCache())
