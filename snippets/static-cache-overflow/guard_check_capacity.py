"""Check the room left in a StaticCache before writing, with a message that gives the numbers."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def write(cache, key_states, value_states, layer_idx):
    stored = int(cache.get_seq_length(layer_idx))  # a 0-d tensor on static layers
    capacity = cache.get_max_length(layer_idx)
    incoming = key_states.shape[-2]
    if stored + incoming > capacity:
        raise ValueError(
            f"the static cache holds {capacity} positions and already has {stored}; cannot add "
            f"{incoming} more. Create it with max_cache_len >= prompt length + max_new_tokens"
        )
    return cache.update(key_states, value_states, layer_idx)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=1, hidden_size=256, num_attention_heads=4, num_key_value_heads=2)
cache = StaticCache(config=config, max_cache_len=16)
write(cache, torch.randn(1, 2, 12, 64, device=device), torch.randn(1, 2, 12, 64, device=device), 0)
for _ in range(8):
    write(cache, torch.randn(1, 2, 1, 64, device=device), torch.randn(1, 2, 1, 64, device=device), 0)
