"""StaticCache gives sliding-window layers to a config with `sliding_window` set (4.56+)."""

from transformers import MistralConfig

config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128, sliding_window=8)

# --8<-- [start:show]
from transformers import StaticCache

cache = StaticCache(config=config, max_cache_len=32)
# --8<-- [end:show]
assert all(layer.is_sliding for layer in cache.layers)
