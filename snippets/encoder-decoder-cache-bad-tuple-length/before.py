"""Building the cache of a T5-style model, with both caches packed into one tuple."""

from transformers import DynamicCache, EncoderDecoderCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)

# --8<-- [start:show]
caches = (DynamicCache(config=config), DynamicCache(config=config))
# One argument is read as legacy per-layer tuples: each cache is taken for one "layer".
past_key_values = EncoderDecoderCache(caches)
# --8<-- [end:show]
