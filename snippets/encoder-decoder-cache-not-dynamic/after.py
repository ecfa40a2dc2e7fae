"""Caches that must be rolled back are built from DynamicCache, which can drop tokens."""

import torch
from transformers import DynamicCache, EncoderDecoderCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
past_key_values = EncoderDecoderCache(DynamicCache(config=config), DynamicCache(config=config))
drafted = torch.randn(1, 4, 5, 16, device=device)  # 5 drafted tokens went through the decoder
for layer_idx in range(config.num_decoder_layers):
    past_key_values.self_attention_cache.update(drafted, drafted, layer_idx)

past_key_values.crop(-2)  # drop the 2 rejected tokens
assert past_key_values.get_seq_length() == 3
# --8<-- [end:show]
