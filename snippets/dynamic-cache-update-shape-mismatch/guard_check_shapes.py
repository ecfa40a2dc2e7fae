"""Check the new states against the cached ones first, naming the dimension that differs."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def checked_update(cache, key_states, value_states, layer_idx):
    if layer_idx < len(cache.layers) and cache.layers[layer_idx].is_initialized:
        cached = cache.layers[layer_idx].keys.shape
        for axis, what in ((0, "batch size"), (1, "key/value heads"), (3, "head size")):
            if key_states.shape[axis] != cached[axis]:
                raise ValueError(
                    f"key_states has {what} {key_states.shape[axis]}, but the cache holds {cached[axis]}; "
                    "use a cache built for this batch and model"
                )
    return cache.update(key_states, value_states, layer_idx)
# --8<-- [end:show]


cache = DynamicCache()
prompt = torch.zeros(1, 8, 5, 64, device=device)
checked_update(cache, prompt, prompt, 0)
step = torch.zeros(2, 8, 1, 64, device=device)
checked_update(cache, step, step, 0)
