"""4.56+: `StaticCache(config=..., max_cache_len=...)`; batch size, device and dtype come from the first update."""

from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
cache = StaticCache(config=config, max_cache_len=16)
# --8<-- [end:show]
