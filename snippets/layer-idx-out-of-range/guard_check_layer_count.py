"""Check the cache's layer count against the model once, when the cache is handed to it."""

import torch
from transformers import LlamaConfig, StaticCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def check_cache_fits(cache, config):
    # Models that share KV between their last layers (num_kv_shared_layers) cache fewer layers.
    expected = config.num_hidden_layers - (getattr(config, "num_kv_shared_layers", None) or 0)
    if len(cache.layers) != expected:
        raise ValueError(
            f"the cache has {len(cache.layers)} layers but the model caches {expected}; "
            "build the cache from this model's config"
        )
# --8<-- [end:show]


target_config = LlamaConfig(num_hidden_layers=8, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
draft_config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = StaticCache(config=draft_config, max_cache_len=128)
check_cache_fits(cache, draft_config)  # the draft model's own config: it fits
step = torch.zeros(1, 8, 1, 64, device=device)
cache.update(step, step, layer_idx=0)  # and the library writes it
check_cache_fits(cache, target_config)  # before the first forward pass
