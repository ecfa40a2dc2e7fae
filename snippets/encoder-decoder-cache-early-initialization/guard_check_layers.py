"""Refuse containers that have no layers of their own, with a message that says what to do."""

import torch
from transformers import EncoderDecoderCache, StaticCache, T5Config


# --8<-- [start:show]
def early_initialize(cache, **shape) -> None:
    if not hasattr(cache, "layers"):
        raise TypeError(
            f"{type(cache).__name__} has no layers of its own; call early_initialization on "
            "its self_attention_cache and cross_attention_cache instead"
        )
    cache.early_initialization(**shape)
# --8<-- [end:show]


t5 = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
seq2seq = EncoderDecoderCache(StaticCache(config=t5, max_cache_len=32), StaticCache(config=t5, max_cache_len=10))
early_initialize(seq2seq.self_attention_cache, batch_size=1, num_heads=4, head_dim=16, dtype=torch.float32,
                 device="cpu")  # a sub-cache has layers: the library allocates them
early_initialize(seq2seq, batch_size=1, num_heads=4, head_dim=16, dtype=torch.float32, device="cpu")
