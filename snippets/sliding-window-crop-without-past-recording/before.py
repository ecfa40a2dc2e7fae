"""A hand-written speculative-decoding step rolls back rejected draft tokens on a sliding-window model."""

import torch
from transformers import DynamicCache, MistralConfig

# A small Mistral-style model: every layer is a sliding-window layer of 8 tokens.
config = MistralConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                       sliding_window=8)
device = "cuda" if torch.cuda.is_available() else "cpu"
cache = DynamicCache(config=config)


def forward(cache, num_tokens):
    """Stand-in for the model's attention layers: each one stores its new keys and values."""
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, num_tokens, config.head_dim, device=device)
        cache.update(kv, kv, layer_idx)


forward(cache, 6)  # prefill: the prompt
forward(cache, 4)  # verify 4 draft tokens in one pass: 10 tokens seen, past the window of 8

# --8<-- [start:show]
# The target model accepted 2 of the 4 draft tokens: drop the 2 rejected ones.
cache.crop(-2)
# --8<-- [end:show]
