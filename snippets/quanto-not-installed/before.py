"""A quantized KV cache with the optimum-quanto backend, on an environment without optimum-quanto."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
# "quanto" is also the backend generate(cache_implementation="quantized") picks by default.
cache = QuantizedCache(backend="quanto", config=config, nbits=4)
# --8<-- [end:show]
