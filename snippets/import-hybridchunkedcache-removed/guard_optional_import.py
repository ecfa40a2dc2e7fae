"""Use the class where the installed release has it, StaticCache elsewhere."""

from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, attention_chunk_size=8,
                     layer_types=["chunked_attention", "chunked_attention", "chunked_attention", "full_attention"])

# --8<-- [start:show]
try:
    from transformers import HybridChunkedCache  # 4.54-4.57 (in transformers.cache_utils from 4.51)
except ImportError:
    HybridChunkedCache = None


def make_chunked_cache(config, max_cache_len):
    if HybridChunkedCache is not None:
        return HybridChunkedCache(config=config, max_batch_size=1, max_cache_len=max_cache_len)
    return StaticCache(config=config, max_cache_len=max_cache_len)  # 5.0+
# --8<-- [end:show]


cache = make_chunked_cache(config, 32)
