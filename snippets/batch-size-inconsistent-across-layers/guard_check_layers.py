"""Before reusing a static cache, check each allocated layer against the batch you are about to run."""

import torch
from transformers import LlamaConfig, StaticCache


# --8<-- [start:show]
def check_batch(cache, batch_size):
    stale = {
        idx: layer.batch_size
        for idx, layer in enumerate(cache.layers)
        if getattr(layer, "is_initialized", False) and getattr(layer, "batch_size", batch_size) != batch_size
    }
    if stale:
        raise RuntimeError(
            f"cache layers {sorted(stale)} were allocated for batch sizes {sorted(set(stale.values()))}, "
            f"not {batch_size}; create a new cache for this batch"
        )
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=4, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=config, max_cache_len=64)
cache.update(torch.randn(1, 8, 3, 64), torch.randn(1, 8, 3, 64), layer_idx=0)
agreed = StaticCache(config=config, max_cache_len=64)
agreed.early_initialization(1, 8, 64, torch.float32, "cpu")
check_batch(agreed, 1)
assert agreed.batch_size == 1  # every layer allocated for one batch: the library agrees
check_batch(cache, 4)  # stops here, before early_initialization or cache.batch_size
