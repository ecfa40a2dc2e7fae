"""The same cache once hqq is installed: pip install "hqq>=0.2.1"."""

import torch
from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
device = "cuda" if torch.cuda.is_available() else "cpu"
dtype = torch.float16 if device == "cuda" else torch.float32

# --8<-- [start:show]
# After `pip install "hqq>=0.2.1"` and a restart of the Python process:
cache = QuantizedCache(backend="hqq", config=config, nbits=4, axis_key=1, axis_value=1)
# --8<-- [end:show]

keys = torch.randn(1, 8, 16, 64, device=device, dtype=dtype)
cache.update(keys, keys.clone(), layer_idx=0)
assert cache.get_seq_length() == 16
