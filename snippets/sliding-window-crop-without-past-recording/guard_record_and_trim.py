"""Build rollback-capable caches in one place, and trim them after every step."""

import torch
from transformers import DynamicCache, MistralConfig

config = MistralConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                       sliding_window=8)
device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def new_speculative_cache(config):
    """A cache that can always take back rejected draft tokens."""
    cache = DynamicCache(config=config)
    cache.activate_past_recording()  # before any token goes in
    return cache


def accept(cache, num_rejected):
    # Call it after every step, even with nothing rejected: while recording, sliding layers keep
    # every token until `crop` says what is final, and crop(0) trims them back to the window.
    cache.crop(-num_rejected)
# --8<-- [end:show]


cache = new_speculative_cache(config)
for new_tokens, rejected in [(6, 0), (4, 2), (4, 0), (4, 3)]:
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, new_tokens, config.head_dim, device=device)
        cache.update(kv, kv, layer_idx)
    accept(cache, rejected)
    assert cache.layers[0].keys.shape[-2] < config.sliding_window  # memory stays bounded
