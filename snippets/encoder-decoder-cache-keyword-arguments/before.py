"""Code written for transformers 4.43-4.55 that names the two caches of an encoder-decoder model."""

from transformers import DynamicCache, EncoderDecoderCache

# --8<-- [start:show]
cache = EncoderDecoderCache(self_attention_cache=DynamicCache(), cross_attention_cache=DynamicCache())
# --8<-- [end:show]
