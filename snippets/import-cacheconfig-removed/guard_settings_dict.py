"""Keep the settings as a dict; wrap them in the library's config classes only where those still exist."""

from transformers import LlamaConfig
from transformers import cache_utils

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
settings = {"backend": "quanto", "nbits": 4, "residual_length": 128}


def make_quantized_cache(config, settings):
    if hasattr(cache_utils, "CacheConfig"):  # 4.42-4.55: a config object per cache
        return cache_utils.QuantoQuantizedCache(cache_config=cache_utils.QuantizedCacheConfig(**settings))
    return cache_utils.QuantizedCache(config=config, **settings)  # 4.56+: keywords
# --8<-- [end:show]


cache = make_quantized_cache(config, settings)
