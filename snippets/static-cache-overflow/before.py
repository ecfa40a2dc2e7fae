"""A decode loop that generates more tokens than the StaticCache was sized for."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2)
device = "cuda" if torch.cuda.is_available() else "cpu"
head_dim = config.hidden_size // config.num_attention_heads

prompt_length, max_new_tokens = 12, 8
# --8<-- [start:show]
# Sized once for "typical" requests; this one needs 12 + 8 = 20 positions.
cache = StaticCache(config=config, max_cache_len=16)


def forward(cache, num_tokens):
    """Stand-in for the model's attention layers: each one writes its new keys and values."""
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, num_tokens, head_dim, device=device)
        cache.update(kv, kv, layer_idx)


forward(cache, prompt_length)  # prefill
for _ in range(max_new_tokens):
    forward(cache, 1)          # one token per step; step 5 writes position 16
# --8<-- [end:show]
