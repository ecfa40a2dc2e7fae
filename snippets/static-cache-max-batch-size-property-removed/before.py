"""Serving glue that reads the batch size a StaticCache was built for from `max_batch_size`."""

import inspect

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
params = inspect.signature(StaticCache.__init__).parameters
if "batch_size" in params:  # 4.45-4.50 named the constructor argument `batch_size`
    cache = StaticCache(config=config, batch_size=2, max_cache_len=16, device="cpu", dtype=torch.float32)
else:  # 4.56+: the batch size comes from the first update
    cache = StaticCache(config=config, max_cache_len=16)
    for layer_idx in range(2):  # the prefill has written every layer
        cache.update(torch.randn(2, 2, 3, 16), torch.randn(2, 2, 3, 16), layer_idx,
                     {"cache_position": torch.arange(3)})

# --8<-- [start:show]
rows = cache.max_batch_size  # missing on 4.45-4.46 and since 5.20
# --8<-- [end:show]
