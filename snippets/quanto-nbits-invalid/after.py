"""The same sweep over the bit widths the quanto backend supports."""

import torch
from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
caches = {nbits: QuantizedCache(backend="quanto", config=config, nbits=nbits) for nbits in (4, 2)}
# --8<-- [end:show]

keys = torch.randn(1, 8, 16, 64, device=device)
for cache in caches.values():
    cache.update(keys, keys.clone(), layer_idx=0)
    assert cache.get_seq_length() == 16
