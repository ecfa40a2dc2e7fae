"""StaticCache(offloading=True) infers the sliding/global pattern from the config (4.56+)."""

from transformers import Gemma2Config

config = Gemma2Config(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, vocab_size=128, sliding_window=8)

# --8<-- [start:show]
from transformers import StaticCache

cache = StaticCache(config=config, max_cache_len=32, offloading=True)
# --8<-- [end:show]
assert [layer.is_sliding for layer in cache.layers] == [True, False, True, False]
