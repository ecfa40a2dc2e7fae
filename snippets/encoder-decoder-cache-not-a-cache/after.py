"""Wrap the per-layer pairs in a DynamicCache first: it is filled with them, layer by layer."""

import torch
from transformers import DynamicCache, EncoderDecoderCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

cross_kv = tuple(
    (torch.randn(1, 4, 10, 16, device=device), torch.randn(1, 4, 10, 16, device=device))
    for _ in range(config.num_decoder_layers)
)

# --8<-- [start:show]
past_key_values = EncoderDecoderCache(DynamicCache(config=config), DynamicCache(cross_kv))
# Layers whose cross-attention states are already there are marked, so they are not recomputed.
assert all(past_key_values.is_updated.values())
# --8<-- [end:show]

keys = torch.randn(1, 4, 1, 16, device=device)
past_key_values.self_attention_cache.update(keys, keys, layer_idx=0)
assert past_key_values.get_seq_length() == 1
