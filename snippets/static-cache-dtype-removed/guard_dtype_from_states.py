"""Take the dtype from the tensors the model writes into the cache, never from the cache object."""

import torch
from transformers import LlamaConfig, StaticCache


# --8<-- [start:show]
def allocate_scores(key_states, num_heads, max_cache_len):
    """Buffers in the dtype and on the device of the keys themselves: right on every release."""
    return torch.zeros(key_states.shape[0], num_heads, 1, max_cache_len, dtype=key_states.dtype,
                       device=key_states.device)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
cache = StaticCache(config=config, max_cache_len=16)
key_states = torch.randn(1, 2, 4, 16)
cache.update(key_states, torch.randn(1, 2, 4, 16), 0)
assert allocate_scores(key_states, config.num_attention_heads, 16).dtype == torch.float32
