"""One helper builds every encoder-decoder cache: positional arguments, checked first."""

from transformers import Cache, DynamicCache, EncoderDecoderCache


# --8<-- [start:show]
def encoder_decoder_cache(self_attention: Cache, cross_attention: Cache) -> EncoderDecoderCache:
    """Works on every release with EncoderDecoderCache (4.43+): the arguments are positional."""
    if not isinstance(self_attention, Cache) or not isinstance(cross_attention, Cache):
        raise TypeError("encoder_decoder_cache() takes two Cache objects (self-attention, cross-attention)")
    return EncoderDecoderCache(self_attention, cross_attention)


cache = encoder_decoder_cache(DynamicCache(), DynamicCache())
# --8<-- [end:show]
assert cache.get_seq_length() == 0
