"""The same rollback, with crop() given the number of tokens to remove, as a negative int."""

import torch
from transformers import DynamicCache, Gemma2Config

config = Gemma2Config(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                      head_dim=64, sliding_window=8)
device = "cuda" if torch.cuda.is_available() else "cpu"
cache = DynamicCache(config=config)
cache.activate_past_recording()


def forward(cache, num_tokens):
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, num_tokens, config.head_dim, device=device)
        cache.update(kv, kv, layer_idx)


prompt_length = 6
forward(cache, prompt_length)
for _ in range(5):
    forward(cache, 1)

# --8<-- [start:show]
# crop() takes how many tokens to remove: here, everything after the prompt.
cache.crop(prompt_length - cache.get_seq_length())  # crop(-5)
assert cache.get_seq_length() == prompt_length
# --8<-- [end:show]

forward(cache, 1)  # generate a new answer from the same prompt
assert cache.get_seq_length() == prompt_length + 1
