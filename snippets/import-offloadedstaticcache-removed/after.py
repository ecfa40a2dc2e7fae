"""StaticCache takes `offloading=True` since 4.56."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers import StaticCache

cache = StaticCache(config=config, max_cache_len=64, offloading=True)
# --8<-- [end:show]
assert len(cache.layers) == 2
