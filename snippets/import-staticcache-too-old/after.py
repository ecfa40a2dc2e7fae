"""Import StaticCache only where it exists: the dynamic path then runs on 4.36-4.37 too."""

# --8<-- [start:show]
from transformers.cache_utils import Cache, DynamicCache

try:
    from transformers.cache_utils import StaticCache  # 4.38+
except ImportError:  # transformers 4.36-4.37: only dynamic caching is available
    StaticCache = None

cache = DynamicCache()
# --8<-- [end:show]
assert isinstance(cache, Cache)
