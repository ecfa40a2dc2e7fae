"""Remote modeling code (InternLM2 style) written for transformers >= 4.38, loaded on 4.36-4.37."""

# --8<-- [start:show]
from transformers.cache_utils import Cache, DynamicCache, StaticCache  # StaticCache arrived in 4.38

cache = DynamicCache()
# --8<-- [end:show]
