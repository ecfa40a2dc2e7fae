"""The prompt's cache expanded to the batch before the batch continues from it."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"
cache = DynamicCache()
prompt = torch.zeros(1, 8, 5, 64, device=device)
cache.update(prompt, prompt, layer_idx=0)

# --8<-- [start:show]
# One copy of the prompt's keys and values per sequence of the batch.
cache.batch_repeat_interleave(2)
step = torch.zeros(2, 8, 1, 64, device=device)
keys, values = cache.update(step, step, layer_idx=0)
assert keys.shape == (2, 8, 6, 64)
# --8<-- [end:show]
