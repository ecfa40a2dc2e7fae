"""StaticCache reads the layer types from the config (4.56+): sliding layers get the window, the others the full length."""

from transformers import Gemma2Config

config = Gemma2Config(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, vocab_size=128, sliding_window=8)

# --8<-- [start:show]
from transformers import StaticCache

cache = StaticCache(config=config, max_cache_len=32)
# --8<-- [end:show]
assert [layer.is_sliding for layer in cache.layers] == [True, False, True, False]
