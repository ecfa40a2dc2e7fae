"""Cutting a cache back to the end of the prompt with the old absolute-length form of crop()."""

import torch
from transformers import DynamicCache, Gemma2Config

# Gemma 2 style: layers alternate sliding-window (8 tokens) and full attention.
config = Gemma2Config(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                      head_dim=64, sliding_window=8)
device = "cuda" if torch.cuda.is_available() else "cpu"
cache = DynamicCache(config=config)
cache.activate_past_recording()  # so the answer can be taken back


def forward(cache, num_tokens):
    """Stand-in for the model's attention layers: each one stores its new keys and values."""
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, num_tokens, config.head_dim, device=device)
        cache.update(kv, kv, layer_idx)


prompt_length = 6
forward(cache, prompt_length)  # the prompt
for _ in range(5):             # five generated tokens: 11 in all, past the window of 8
    forward(cache, 1)

# --8<-- [start:show]
# "Regenerate": drop the answer and keep the prompt, passing the length to keep.
cache.crop(prompt_length)
# --8<-- [end:show]
