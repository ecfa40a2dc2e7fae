"""Reusing cross-attention keys/values computed once from the encoder output."""

import torch
from transformers import DynamicCache, EncoderDecoderCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

# One (key, value) pair per decoder layer, over the 10 encoder positions.
cross_kv = tuple(
    (torch.randn(1, 4, 10, 16, device=device), torch.randn(1, 4, 10, 16, device=device))
    for _ in range(config.num_decoder_layers)
)

# --8<-- [start:show]
# The tuple of per-layer pairs is passed where a Cache object is expected.
past_key_values = EncoderDecoderCache(DynamicCache(config=config), cross_kv)
# --8<-- [end:show]
