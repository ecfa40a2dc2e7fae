"""The two caches passed positionally: self-attention first, cross-attention second."""

from transformers import DynamicCache, EncoderDecoderCache

# --8<-- [start:show]
cache = EncoderDecoderCache(DynamicCache(), DynamicCache())
# --8<-- [end:show]
assert cache.get_seq_length() == 0
