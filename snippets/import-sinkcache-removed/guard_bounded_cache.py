"""A bounded-memory cache on every release: SinkCache where it still works, a sliding window elsewhere."""

from transformers import DynamicCache, MistralConfig

config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128, sliding_window=256)


# --8<-- [start:show]
def make_bounded_cache(config, window_length=256, num_sink_tokens=4):
    try:
        from transformers import SinkCache  # 4.36-4.57 (a stub that raises from 4.53)

        return SinkCache(window_length=window_length, num_sink_tokens=num_sink_tokens)
    except (ImportError, NotImplementedError):  # 4.53+: no in-library attention sinks
        return DynamicCache(config=config)  # keeps the last `sliding_window` positions per layer (4.56+)
# --8<-- [end:show]


cache = make_bounded_cache(config)
