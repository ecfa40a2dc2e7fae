"""Starting generation of an encoder-decoder model with an empty cache, as with DynamicCache()."""

from transformers import EncoderDecoderCache

# --8<-- [start:show]
# DynamicCache() can start empty; EncoderDecoderCache cannot guess its two sub-caches.
past_key_values = EncoderDecoderCache()
# --8<-- [end:show]
