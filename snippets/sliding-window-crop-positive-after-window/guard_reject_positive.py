"""Reject the old absolute-length form before it reaches the cache."""

import torch
from transformers import DynamicCache, Gemma2Config

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def rollback(cache, tokens_to_remove):
    if tokens_to_remove > 0:
        raise ValueError(
            f"rollback() takes the number of tokens to remove as a negative int, got {tokens_to_remove}; "
            "to keep the first N tokens, pass N - cache.get_seq_length()"
        )
    cache.crop(tokens_to_remove)
# --8<-- [end:show]


config = Gemma2Config(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                      head_dim=64, sliding_window=8)
cache = DynamicCache(config=config)
cache.activate_past_recording()
for layer_idx in range(config.num_hidden_layers):
    kv = torch.randn(1, config.num_key_value_heads, 11, config.head_dim, device=device)
    cache.update(kv, kv, layer_idx)
rollback(cache, -1)  # a negative count: rolled back by the library
rollback(cache, 6)
