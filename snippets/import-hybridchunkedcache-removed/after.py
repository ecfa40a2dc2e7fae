"""StaticCache reads the layer types from the config (4.56+): chunked layers get a window, the others the full length."""

from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, attention_chunk_size=8,
                     layer_types=["chunked_attention", "chunked_attention", "chunked_attention", "full_attention"])

# --8<-- [start:show]
from transformers import StaticCache

cache = StaticCache(config=config, max_cache_len=32)
# --8<-- [end:show]
assert [layer.is_sliding for layer in cache.layers] == [True, True, True, False]
