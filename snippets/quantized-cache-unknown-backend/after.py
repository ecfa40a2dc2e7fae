"""Use a backend this release knows: "quanto" (optimum-quanto) or "hqq"."""

import torch
from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=256, num_attention_heads=4, num_key_value_heads=4)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
cache = QuantizedCache(backend="quanto", config=config, nbits=4)
# --8<-- [end:show]

keys = torch.randn(1, 4, 8, 64, device=device)
cache.update(keys, keys, layer_idx=0)
assert cache.get_seq_length() == 8
