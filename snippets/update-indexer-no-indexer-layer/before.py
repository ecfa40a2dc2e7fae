"""Sparse-attention (DeepSeek V3.2 style) decoding with the usual bare DynamicCache()."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
cache = DynamicCache()  # grows a plain DynamicLayer for each new layer index

# What a sparse-attention block does for layer 0: cache K/V, then the indexer's keys.
keys, values = cache.update(
    torch.randn(1, 8, 6, 64, device=device), torch.randn(1, 8, 6, 64, device=device), layer_idx=0
)
index_keys = cache.update_indexer(torch.randn(1, 6, 32, device=device), layer_idx=0)  # [batch, seq, index_dim]
# --8<-- [end:show]
