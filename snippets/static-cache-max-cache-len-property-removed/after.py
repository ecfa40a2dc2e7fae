"""5.13+: `cache.get_max_length()`."""

from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
cache = StaticCache(config=config, max_cache_len=16)

# --8<-- [start:show]
room = cache.get_max_length() - 12
# --8<-- [end:show]
assert room == 4
