"""5.13+ name it `get_max_length()` again (-1 for caches that can grow)."""

from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
cache = StaticCache(config=config, max_cache_len=16)
prompt_length, max_new_tokens = 12, 8

# --8<-- [start:show]
if prompt_length + max_new_tokens > cache.get_max_length():
    cache = StaticCache(config=config, max_cache_len=prompt_length + max_new_tokens)
# --8<-- [end:show]
assert cache.get_max_length() == 20
