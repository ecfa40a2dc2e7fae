"""One factory for an offloaded static cache: the class where it exists, the keyword elsewhere."""

from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
try:
    from transformers import OffloadedStaticCache  # 4.45-4.57
except ImportError:  # 5.0+: `offloading=True` on StaticCache (4.56+)
    OffloadedStaticCache = None


def make_offloaded_static_cache(config, max_cache_len):
    if OffloadedStaticCache is not None:
        return OffloadedStaticCache(config=config, max_batch_size=1, max_cache_len=max_cache_len, device="cpu")
    return StaticCache(config=config, max_cache_len=max_cache_len, offloading=True)
# --8<-- [end:show]


cache = make_offloaded_static_cache(config, 64)
