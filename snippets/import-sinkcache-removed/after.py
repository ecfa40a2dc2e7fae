"""Bounded-memory cache without sink tokens: a sliding-window DynamicCache from the config (4.56+).

The exact attention-sink behaviour lives on as a Hub `custom_generate` repository
(`transformers-community/sink_cache`), which needs a download and is not run here."""

from transformers import MistralConfig

config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128, sliding_window=256)

# --8<-- [start:show]
from transformers import DynamicCache

cache = DynamicCache(config=config)  # every layer keeps at most `sliding_window` positions
# --8<-- [end:show]
assert len(cache.layers) == 2
