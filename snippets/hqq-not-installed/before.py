"""A quantized KV cache with the HQQ backend, on an environment without hqq."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
cache = QuantizedCache(backend="hqq", config=config, nbits=4, axis_key=1, axis_value=1)
# --8<-- [end:show]
