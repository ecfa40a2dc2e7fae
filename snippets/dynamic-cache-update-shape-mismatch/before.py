"""A prompt's cache (batch of one) reused for a batch of two sequences."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"
cache = DynamicCache()
prompt = torch.zeros(1, 8, 5, 64, device=device)  # (batch, kv heads, tokens, head dim)
cache.update(prompt, prompt, layer_idx=0)

# --8<-- [start:show]
# The next step comes from a batch of two, but the cache holds one sequence.
step = torch.zeros(2, 8, 1, 64, device=device)
cache.update(step, step, layer_idx=0)
# --8<-- [end:show]
