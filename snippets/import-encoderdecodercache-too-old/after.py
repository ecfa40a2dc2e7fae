"""Import the newer class only where it exists, so the rest of the library still loads on older releases."""

# --8<-- [start:show]
from transformers import Cache, DynamicCache

try:
    from transformers import EncoderDecoderCache  # 4.43+
except ImportError:  # older transformers: encoder-decoder models keep tuple caches there
    EncoderDecoderCache = None

cache = DynamicCache()
# --8<-- [end:show]
assert isinstance(cache, Cache)
