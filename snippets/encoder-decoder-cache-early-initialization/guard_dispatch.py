"""One pre-allocation helper for every cache kind: encoder-decoder caches are split in two."""

import torch
from transformers import Cache, EncoderDecoderCache, LlamaConfig, StaticCache, T5Config


# --8<-- [start:show]
def early_initialize(cache: Cache, **shape) -> None:
    if isinstance(cache, EncoderDecoderCache):
        early_initialize(cache.self_attention_cache, **shape)
        early_initialize(cache.cross_attention_cache, **shape)
    else:
        cache.early_initialization(**shape)
# --8<-- [end:show]


device = "cuda" if torch.cuda.is_available() else "cpu"
t5 = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
seq2seq = EncoderDecoderCache(StaticCache(config=t5, max_cache_len=32), StaticCache(config=t5, max_cache_len=10))
early_initialize(seq2seq, batch_size=1, num_heads=4, head_dim=16, dtype=torch.float32, device=device)

llama = LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, num_key_value_heads=4)
decoder_only = StaticCache(config=llama, max_cache_len=32)
early_initialize(decoder_only, batch_size=1, num_heads=4, head_dim=16, dtype=torch.float32, device=device)
assert seq2seq.cross_attention_cache.is_initialized and decoder_only.is_initialized
