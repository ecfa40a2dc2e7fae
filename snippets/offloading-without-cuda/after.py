"""Offload only where there is a CUDA device to offload from; elsewhere keep the cache in place."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
cache = DynamicCache(config=config, offloading=(device == "cuda"))
keys = torch.randn(1, 4, 3, 16, device=device)
cache.update(keys, keys, layer_idx=0)
# --8<-- [end:show]

assert cache.get_seq_length() == 3
