"""Ask for the batch size under whichever name the installed release has, else read it off the tensors."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
cache = StaticCache(config=config, max_cache_len=16)
for layer_idx in range(2):
    cache.update(torch.randn(2, 2, 3, 16), torch.randn(2, 2, 3, 16), layer_idx, {"cache_position": torch.arange(3)})


# --8<-- [start:show]
def batch_of(cache):
    """The batch size a cache holds, on any release 4.38 - 5.x (None before anything was written)."""
    for name in ("batch_size", "max_batch_size"):  # 4.45-4.50 and 5.13+ / 4.38-4.44 and 4.47-5.19
        value = getattr(cache, name, None)
        if isinstance(value, int) and value > 0:
            return value
    for layer in getattr(cache, "layers", []):  # 4.56+: a written layer's keys are (batch, heads, length, dim)
        keys = getattr(layer, "keys", None)
        if keys is not None and keys.dim() == 4:
            return keys.shape[0]
    return None
# --8<-- [end:show]


assert batch_of(cache) == 2
