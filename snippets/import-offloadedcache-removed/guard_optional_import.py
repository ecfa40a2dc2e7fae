"""One factory for an offloaded dynamic cache: the class where it exists, the option elsewhere."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers.cache_utils import DynamicCache

try:
    from transformers.cache_utils import OffloadedCache  # 4.44-4.57
except ImportError:  # older than 4.44 (no offloading at all) or 5.0+ (an option of DynamicCache)
    OffloadedCache = None


def make_offloaded_cache(config):
    if OffloadedCache is not None:
        return OffloadedCache()
    return DynamicCache(config=config, offloading=True)  # 4.56+
# --8<-- [end:show]


cache = make_offloaded_cache(config)
