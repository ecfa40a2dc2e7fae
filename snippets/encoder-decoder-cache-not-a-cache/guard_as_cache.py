"""Turn whatever the caller has (a Cache, per-layer pairs, or nothing yet) into a Cache."""

import torch
from transformers import Cache, DynamicCache, EncoderDecoderCache, T5Config


# --8<-- [start:show]
def as_cache(value):
    if isinstance(value, Cache):
        return value
    if value is None:
        return DynamicCache()  # grows as layers are updated
    return DynamicCache(value)  # an iterable of (key, value) pairs, one per layer


def encoder_decoder_cache(self_attention, cross_attention):
    return EncoderDecoderCache(as_cache(self_attention), as_cache(cross_attention))
# --8<-- [end:show]


config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"
pair = (torch.randn(1, 4, 10, 16, device=device), torch.randn(1, 4, 10, 16, device=device))
past_key_values = encoder_decoder_cache(None, (pair, pair))
keys = torch.randn(1, 4, 1, 16, device=device)
past_key_values.self_attention_cache.update(keys, keys, layer_idx=0)
assert past_key_values.get_seq_length() == 1 and past_key_values.is_updated == {0: True, 1: True}
