"""Attention forward from a remote-code modeling file (Phi-3, DeepSeek-V2, Qwen2.5-Math-PRM) written for 4.36-4.53."""

import torch
from transformers import DynamicCache

layer_idx = 0
cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), layer_idx)  # the prompt, already cached
key_states = torch.randn(1, 2, 1, 16)  # one new token

# --8<-- [start:show]
kv_seq_len = key_states.shape[-2]
if cache is not None:
    kv_seq_len += cache.get_usable_length(kv_seq_len, layer_idx)  # gone since transformers 4.54
# --8<-- [end:show]
