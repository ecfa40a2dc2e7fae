"""Import the class where the installed release has it, and build the replacement elsewhere."""

from transformers import Gemma2Config, StaticCache

config = Gemma2Config(num_hidden_layers=4, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      num_key_value_heads=2, head_dim=16, vocab_size=128, sliding_window=8)

# --8<-- [start:show]
try:
    from transformers import HybridCache  # 4.44-4.57
except ImportError:  # 5.0+: StaticCache reads the sliding/global layer pattern from the config
    HybridCache = None


def make_hybrid_cache(config, max_cache_len):
    if HybridCache is not None:
        return HybridCache(config=config, max_batch_size=1, max_cache_len=max_cache_len)
    return StaticCache(config=config, max_cache_len=max_cache_len)
# --8<-- [end:show]


cache = make_hybrid_cache(config, 32)
