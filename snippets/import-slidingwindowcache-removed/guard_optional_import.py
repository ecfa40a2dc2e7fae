"""Import the class only where it exists; elsewhere StaticCache gives a sliding-window config sliding layers."""

from transformers import MistralConfig, StaticCache

config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128, sliding_window=8)

# --8<-- [start:show]
try:
    from transformers import SlidingWindowCache  # 4.44-4.57
except ImportError:  # 5.0+
    SlidingWindowCache = None


def make_window_cache(config, max_cache_len):
    if SlidingWindowCache is not None:
        return SlidingWindowCache(config=config, max_batch_size=1, max_cache_len=max_cache_len)
    return StaticCache(config=config, max_cache_len=max_cache_len)
# --8<-- [end:show]


cache = make_window_cache(config, 32)
