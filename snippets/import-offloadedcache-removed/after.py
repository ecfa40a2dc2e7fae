"""Offloading is a DynamicCache option since 4.56 (it needs a CUDA or XPU device to actually offload)."""

import torch
from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers.cache_utils import DynamicCache

cache = DynamicCache(config=config, offloading=True)
# --8<-- [end:show]
assert len(cache.layers) == 2
if torch.cuda.is_available():  # on a CPU-only machine there is nothing to offload to: the first update would fail
    for layer_idx in range(2):
        cache.update(torch.randn(1, 2, 3, 16, device="cuda"), torch.randn(1, 2, 3, 16, device="cuda"), layer_idx)
