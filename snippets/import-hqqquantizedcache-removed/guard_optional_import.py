"""An HQQ-quantized cache on any release since 4.56: the per-backend class where it exists, QuantizedCache elsewhere."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
try:
    from transformers import HQQQuantizedCache  # 4.42-4.57
except ImportError:  # 5.0+: one class, the backend is a keyword
    HQQQuantizedCache = None


def make_hqq_cache(config, nbits=4):
    if HQQQuantizedCache is not None:  # the 4.56-4.57 keywords
        return HQQQuantizedCache(config=config, nbits=nbits, axis_key=1, axis_value=1)
    return QuantizedCache(backend="hqq", config=config, nbits=nbits, axis_key=1, axis_value=1)
# --8<-- [end:show]


cache = make_hqq_cache(config)
