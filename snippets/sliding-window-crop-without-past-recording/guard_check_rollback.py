"""Refuse a rollback that a sliding-window layer cannot do, and say how to make it possible."""

import torch
from transformers import DynamicCache, MistralConfig

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def rollback(cache, num_tokens):
    """Drop the last `num_tokens` tokens from every layer of `cache`."""
    for layer_idx, layer in enumerate(cache.layers):
        window = getattr(layer, "sliding_window", None)
        if window is not None and not getattr(layer, "record_past", False) and layer.get_seq_length() >= window:
            raise RuntimeError(
                f"cannot roll back layer {layer_idx}: it has seen {layer.get_seq_length()} tokens, past its "
                f"sliding window of {window}, and has dropped the older ones; call "
                "cache.activate_past_recording() before the first forward pass"
            )
    cache.crop(-num_tokens)
# --8<-- [end:show]


config = MistralConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                       sliding_window=8)
cache = DynamicCache(config=config)
for layer_idx in range(config.num_hidden_layers):
    kv = torch.randn(1, config.num_key_value_heads, 10, config.head_dim, device=device)
    cache.update(kv, kv, layer_idx)
recorded = DynamicCache(config=config)
recorded.activate_past_recording()
for layer_idx in range(config.num_hidden_layers):
    kv = torch.randn(1, config.num_key_value_heads, 10, config.head_dim, device=device)
    recorded.update(kv, kv, layer_idx)
rollback(recorded, 2)  # recorded from the start: rolled back by the library
rollback(cache, 2)
