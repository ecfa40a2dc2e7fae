"""A bit-width sweep for the quantized KV cache that starts at 8 bits, with the quanto backend."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
caches = {nbits: QuantizedCache(backend="quanto", config=config, nbits=nbits) for nbits in (8, 4, 2)}
# --8<-- [end:show]
