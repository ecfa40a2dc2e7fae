"""An empty encoder-decoder cache is two empty caches: self-attention first, cross-attention second."""

import torch
from transformers import DynamicCache, EncoderDecoderCache

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
past_key_values = EncoderDecoderCache(DynamicCache(), DynamicCache())
# --8<-- [end:show]

# Both grow as the decoder updates them.
keys = torch.randn(1, 4, 1, 16, device=device)
past_key_values.self_attention_cache.update(keys, keys, layer_idx=0)
past_key_values.cross_attention_cache.update(keys, keys, layer_idx=0)
assert past_key_values.get_seq_length() == 1 and len(past_key_values) == 1
