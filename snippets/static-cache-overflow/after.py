"""The same decode loop, with the cache sized for the prompt plus every token to generate."""

import torch
from transformers import LlamaConfig, StaticCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2)
device = "cuda" if torch.cuda.is_available() else "cpu"
head_dim = config.hidden_size // config.num_attention_heads

prompt_length, max_new_tokens = 12, 8
# --8<-- [start:show]
cache = StaticCache(config=config, max_cache_len=prompt_length + max_new_tokens)


def forward(cache, num_tokens):
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, num_tokens, head_dim, device=device)
        cache.update(kv, kv, layer_idx)


forward(cache, prompt_length)
for _ in range(max_new_tokens):
    forward(cache, 1)
assert int(cache.get_seq_length()) == cache.get_max_length() == 20
# --8<-- [end:show]
