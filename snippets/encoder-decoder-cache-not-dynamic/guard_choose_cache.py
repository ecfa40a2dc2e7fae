"""Pick the cache class from what the decoding loop will do with it."""

import torch
from transformers import DynamicCache, EncoderDecoderCache, StaticCache, T5Config


# --8<-- [start:show]
def encoder_decoder_cache(config, *, needs_rollback: bool, max_len: int, encoder_len: int):
    # crop, batch_repeat_interleave and batch_select_indices exist only for DynamicCache halves.
    if needs_rollback:
        return EncoderDecoderCache(DynamicCache(config=config), DynamicCache(config=config))
    return EncoderDecoderCache(
        StaticCache(config=config, max_cache_len=max_len), StaticCache(config=config, max_cache_len=encoder_len)
    )
# --8<-- [end:show]


config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"
past_key_values = encoder_decoder_cache(config, needs_rollback=True, max_len=32, encoder_len=10)
drafted = torch.randn(1, 4, 5, 16, device=device)
for layer_idx in range(config.num_decoder_layers):
    past_key_values.self_attention_cache.update(drafted, drafted, layer_idx)
past_key_values.crop(-2)
assert past_key_values.get_seq_length() == 3
