"""Ask for offloading, and fall back to a plain cache (with a warning) where it cannot work."""

import warnings

import torch
from transformers import DynamicCache, LlamaConfig


# --8<-- [start:show]
def make_cache(config, device, offload=True):
    if offload and torch.device(device).type != "cuda":
        warnings.warn(f"KV cache offloading needs CUDA; keeping the cache on {device}", stacklevel=2)
        offload = False
    return DynamicCache(config=config, offloading=offload)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"
cache = make_cache(config, device)
keys = torch.randn(1, 4, 3, 16, device=device)
cache.update(keys, keys, layer_idx=0)
assert cache.get_seq_length() == 3
