"""Fail at construction, with a message that says why, instead of at the first update."""

import torch
from transformers import DynamicCache, LlamaConfig


# --8<-- [start:show]
def offloaded_cache(config, device):
    if torch.device(device).type != "cuda" or not torch.cuda.is_available():
        raise RuntimeError(
            f"KV cache offloading moves layers between a CUDA device and the CPU, but the cache "
            f"would live on {device!r}; create it with offloading=False there"
        )
    return DynamicCache(config=config, offloading=True)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4)
plain = DynamicCache(config=config)  # without offloading the CPU is fine: the library writes it
plain.update(torch.zeros(1, 4, 1, 16), torch.zeros(1, 4, 1, 16), layer_idx=0)
cache = offloaded_cache(config, device="cpu")
