"""A quantized KV cache on an environment whose optimum-quanto is 0.2.5 or older."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
# optimum-quanto 0.2.5 is installed: the message says ">= 0.2.5", yet this still fails.
cache = QuantizedCache(backend="quanto", config=config, nbits=4)
# --8<-- [end:show]
