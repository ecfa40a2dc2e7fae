"""A library (peft 0.14 style) that imports the cache classes it supports, on transformers older than 4.43."""

# --8<-- [start:show]
from transformers import Cache, DynamicCache, EncoderDecoderCache  # EncoderDecoderCache arrived in 4.43

cache = DynamicCache()
# --8<-- [end:show]
