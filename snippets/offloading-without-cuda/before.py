"""Turning on KV cache offloading to save memory, on a machine whose PyTorch has no CUDA."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
cache = DynamicCache(config=config, offloading=True)  # builds fine, even without CUDA
keys = torch.randn(1, 4, 3, 16, device=device)
cache.update(keys, keys, layer_idx=0)  # the first update uses CUDA streams
# --8<-- [end:show]
