"""For a cache without a maximum length, `get_usable_length` was `get_seq_length(layer_idx)`."""

import torch
from transformers import DynamicCache

layer_idx = 0
cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), layer_idx)
key_states = torch.randn(1, 2, 1, 16)

# --8<-- [start:show]
kv_seq_len = key_states.shape[-2]
if cache is not None:
    kv_seq_len += cache.get_seq_length(layer_idx)
# --8<-- [end:show]
assert kv_seq_len == 5
