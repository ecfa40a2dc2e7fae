"""The same speculative-decoding step, with past recording switched on before the first token."""

import torch
from transformers import DynamicCache, MistralConfig

config = MistralConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=2,
                       sliding_window=8)
device = "cuda" if torch.cuda.is_available() else "cpu"
cache = DynamicCache(config=config)


def forward(cache, num_tokens):
    for layer_idx in range(config.num_hidden_layers):
        kv = torch.randn(1, config.num_key_value_heads, num_tokens, config.head_dim, device=device)
        cache.update(kv, kv, layer_idx)


# --8<-- [start:show]
# Keep the tokens that slide out of the window until `crop` says which ones are final.
cache.activate_past_recording()

forward(cache, 6)  # prefill
forward(cache, 4)  # 4 draft tokens: 10 tokens seen, past the window of 8

cache.crop(-2)  # roll back the 2 rejected drafts; also trims each layer back to the window
assert cache.get_seq_length() == 8
# --8<-- [end:show]

forward(cache, 1)  # decoding goes on from the accepted tokens
assert cache.get_seq_length() == 9
