"""Quantizing values along the last axis, written with HQQ's numbering for it."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
# Keys per channel on the last axis (-1), values meant likewise but written as 1.
cache = QuantizedCache(backend="quanto", config=config, nbits=2, axis_key=-1, axis_value=1)
# --8<-- [end:show]
