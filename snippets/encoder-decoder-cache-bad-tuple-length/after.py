"""The same caches, passed as two arguments: self-attention first, cross-attention second."""

import torch
from transformers import DynamicCache, EncoderDecoderCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
caches = (DynamicCache(config=config), DynamicCache(config=config))
past_key_values = EncoderDecoderCache(*caches)  # or EncoderDecoderCache(self_cache, cross_cache)
# --8<-- [end:show]

keys = torch.randn(1, 4, 3, 16, device=device)
past_key_values.self_attention_cache.update(keys, keys, layer_idx=0)
assert past_key_values.get_seq_length() == 3
