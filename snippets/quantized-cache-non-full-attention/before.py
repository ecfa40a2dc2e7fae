"""A 4-bit KV cache for a Mistral-style model, whose config has a sliding window."""

from transformers import MistralConfig, QuantizedCache

# Mistral-7B-v0.1's config: every layer attends to a 4096-token sliding window.
config = MistralConfig(
    num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4, sliding_window=4096
)

# --8<-- [start:show]
cache = QuantizedCache(backend="quanto", config=config, nbits=4)
# --8<-- [end:show]
