"""Build a StaticCache with the keywords the installed release takes, read from its signature."""

import inspect

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)


# --8<-- [start:show]
def make_static_cache(config, batch_size, max_cache_len, device="cpu", dtype=torch.float32):
    params = inspect.signature(StaticCache.__init__).parameters
    kwargs = {"config": config, "max_cache_len": max_cache_len}
    if "batch_size" in params:  # 4.45-4.50 (max_batch_size deprecated there)
        kwargs["batch_size"] = batch_size
    elif "max_batch_size" in params or "max_cache_len" not in params:  # 4.38-4.44, 4.51-4.53; 4.54-4.55 take **kwargs
        kwargs["max_batch_size"] = batch_size
    for name, value in (("device", device), ("dtype", dtype)):  # 5.x: taken from the first update
        if name in params:
            kwargs[name] = value
    return StaticCache(**kwargs)
# --8<-- [end:show]


cache = make_static_cache(config, 1, 16)
