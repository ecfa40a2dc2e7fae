"""Keep the 'cut back to a length' API that older code expects, and translate it for crop()."""

import torch
from transformers import DynamicCache, Gemma2Config

config = Gemma2Config(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                      head_dim=64, sliding_window=8)
device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def truncate_to(cache, length):
    """Keep the first `length` tokens of `cache`; a no-op when it holds no more than that."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)
# --8<-- [end:show]


cache = DynamicCache(config=config)
cache.activate_past_recording()
for _ in range(12):
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, 1, config.head_dim, device=device)
        cache.update(kv, kv, layer_idx)
truncate_to(cache, 9)
truncate_to(cache, 20)  # longer than the cache: nothing to do
assert cache.get_seq_length() == 9
