"""One factory: the class where it exists, StaticCache(offloading=True) elsewhere."""

from transformers import Gemma2Config, StaticCache

config = Gemma2Config(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, vocab_size=128, sliding_window=8)

# --8<-- [start:show]
try:
    from transformers.cache_utils import OffloadedHybridCache  # 4.52-4.57
except ImportError:
    OffloadedHybridCache = None


def make_offloaded_hybrid_cache(config, max_cache_len):
    if OffloadedHybridCache is not None:
        return OffloadedHybridCache(config=config, max_batch_size=1, max_cache_len=max_cache_len)
    return StaticCache(config=config, max_cache_len=max_cache_len, offloading=True)  # 4.56+
# --8<-- [end:show]


cache = make_offloaded_hybrid_cache(config, 32)
