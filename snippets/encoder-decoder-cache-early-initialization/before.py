"""Pre-allocating the static cache of an encoder-decoder model before torch.export."""

import torch
from transformers import EncoderDecoderCache, StaticCache, T5Config

config = T5Config(num_layers=2, d_model=64, d_kv=16, num_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

past_key_values = EncoderDecoderCache(
    StaticCache(config=config, max_cache_len=32),  # decoder positions
    StaticCache(config=config, max_cache_len=10),  # encoder positions
)

# --8<-- [start:show]
# export needs every buffer allocated in advance; the wrapper has no layers of its own.
past_key_values.early_initialization(
    batch_size=1, num_heads=config.num_heads, head_dim=config.d_kv, dtype=torch.float32, device=device
)
# --8<-- [end:show]
