"""Within the window, sliding and full attention see the same tokens: build the cache as full."""

import copy

import torch
from transformers import MistralConfig, QuantizedCache

config = MistralConfig(
    num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4, sliding_window=4096
)
device = "cuda" if torch.cuda.is_available() else "cpu"
max_total_tokens = 2048  # prompt + new tokens, never more than the 4096-token window

# --8<-- [start:show]
assert max_total_tokens <= config.sliding_window
cache_config = copy.deepcopy(config)
cache_config.sliding_window = None  # full-attention layers hold the same tokens within the window
cache = QuantizedCache(backend="quanto", config=cache_config, nbits=4)
# --8<-- [end:show]

keys = torch.randn(1, 4, 8, 64, device=device)
cache.update(keys, keys, layer_idx=0)
assert cache.get_seq_length() == 8
