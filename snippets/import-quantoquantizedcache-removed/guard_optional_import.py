"""A quanto-quantized cache on any release since 4.56: the per-backend class where it exists, QuantizedCache elsewhere."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
try:
    from transformers import QuantoQuantizedCache  # 4.42-4.57
except ImportError:  # 5.0+: one class, the backend is a keyword
    QuantoQuantizedCache = None


def make_quanto_cache(config, nbits=4):
    if QuantoQuantizedCache is not None:  # the 4.56-4.57 keywords
        return QuantoQuantizedCache(config=config, nbits=nbits)
    return QuantizedCache(backend="quanto", config=config, nbits=nbits)
# --8<-- [end:show]


cache = make_quanto_cache(config)
