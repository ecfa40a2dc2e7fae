"""Keep the quantization settings as a dict and hand them to whichever API the release has."""

from transformers import LlamaConfig
from transformers import cache_utils

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
settings = {"nbits": 4, "residual_length": 128}
QuantizedCacheConfig = getattr(cache_utils, "QuantizedCacheConfig", None)  # 4.42-4.55


def make_quantized_cache(config):
    if QuantizedCacheConfig is not None:  # 4.42-4.55: a config object per cache
        return cache_utils.QuantoQuantizedCache(cache_config=QuantizedCacheConfig(backend="quanto", **settings))
    return cache_utils.QuantizedCache(backend="quanto", config=config, **settings)  # 4.56+
# --8<-- [end:show]


cache = make_quantized_cache(config)
