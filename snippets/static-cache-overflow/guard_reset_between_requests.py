"""Reuse one StaticCache across requests, resetting it before each one."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2)
device = "cuda" if torch.cuda.is_available() else "cpu"
cache = StaticCache(config=config, max_cache_len=16)


def forward(cache, num_tokens):
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, 2, num_tokens, 64, device=device)
        cache.update(kv, kv, layer_idx)


# --8<-- [start:show]
for prompt_length, new_tokens in [(10, 6), (12, 4), (8, 8)]:  # each request fits in 16 by itself
    cache.reset()  # zero the buffers and the write position, in place (addresses kept for compile)
    forward(cache, prompt_length)
    for _ in range(new_tokens):
        forward(cache, 1)
# --8<-- [end:show]
assert int(cache.get_seq_length()) == 16
