"""Refuse early, with a message that says what to change, when the cache cannot be rolled back."""

import torch
from transformers import DynamicCache, EncoderDecoderCache, StaticCache, T5Config


# --8<-- [start:show]
def roll_back(cache: EncoderDecoderCache, tokens: int) -> None:
    kinds = {type(c).__name__ for c in (cache.self_attention_cache, cache.cross_attention_cache)
             if not isinstance(c, DynamicCache)}
    if kinds:
        raise TypeError(
            f"cannot drop {tokens} tokens: this EncoderDecoderCache holds {', '.join(sorted(kinds))}; "
            "build both sub-caches as DynamicCache when drafts may be rejected"
        )
    cache.crop(-tokens)
# --8<-- [end:show]


config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
past_key_values = EncoderDecoderCache(
    StaticCache(config=config, max_cache_len=32), StaticCache(config=config, max_cache_len=10)
)
drafted = torch.randn(1, 4, 5, 16)
for layer_idx in range(config.num_decoder_layers):
    past_key_values.self_attention_cache.update(drafted, drafted, layer_idx)
dynamic = EncoderDecoderCache(DynamicCache(), DynamicCache())
for layer_idx in range(config.num_decoder_layers):
    dynamic.self_attention_cache.update(drafted, drafted, layer_idx)
roll_back(dynamic, 2)  # two DynamicCaches: rolled back by the library
roll_back(past_key_values, 2)
