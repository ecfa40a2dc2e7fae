"""Switching a quantized-cache setup from quanto to HQQ, keeping quanto's axis values."""

from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)

# --8<-- [start:show]
# These settings came from a quanto setup, where -1 is valid; only the backend was changed.
cache_config = {"backend": "hqq", "nbits": 4, "axis_key": -1, "axis_value": -1}
cache = QuantizedCache(config=config, **cache_config)
# --8<-- [end:show]
