"""Asking transformers 5.15.1 for the `fp8` KV cache backend, which newer releases have."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4)

# --8<-- [start:show]
# In 5.15.1 the backend names are exactly "quanto" and "hqq".
cache = QuantizedCache(backend="fp8", config=config)
# --8<-- [end:show]
