"""Rolling back rejected draft tokens in a static encoder-decoder cache (speculative decoding)."""

import torch
from transformers import EncoderDecoderCache, StaticCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

# Fixed-size caches, e.g. for torch.compile: 32 decoder positions, 10 encoder positions.
past_key_values = EncoderDecoderCache(
    StaticCache(config=config, max_cache_len=32),
    StaticCache(config=config, max_cache_len=10),
)
drafted = torch.randn(1, 4, 5, 16, device=device)  # 5 drafted tokens went through the decoder
for layer_idx in range(config.num_decoder_layers):
    past_key_values.self_attention_cache.update(drafted, drafted, layer_idx)

# --8<-- [start:show]
# The verifier accepted 3 of the 5 drafted tokens: drop the last 2.
past_key_values.crop(-2)
# --8<-- [end:show]
