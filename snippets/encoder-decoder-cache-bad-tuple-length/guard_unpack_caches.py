"""Accept the two caches either as two arguments or packed in one tuple or list."""

import torch
from transformers import Cache, DynamicCache, EncoderDecoderCache, T5Config


# --8<-- [start:show]
def encoder_decoder_cache(*caches):
    # A single tuple/list made only of Cache objects is two caches, not legacy per-layer tensors.
    if len(caches) == 1 and isinstance(caches[0], (tuple, list)) and caches[0] \
            and all(isinstance(cache, Cache) for cache in caches[0]):
        caches = tuple(caches[0])
    return EncoderDecoderCache(*caches)
# --8<-- [end:show]


config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"
past_key_values = encoder_decoder_cache((DynamicCache(config=config), DynamicCache(config=config)))
keys = torch.randn(1, 4, 3, 16, device=device)
past_key_values.self_attention_cache.update(keys, keys, layer_idx=0)
assert past_key_values.get_seq_length() == 3
