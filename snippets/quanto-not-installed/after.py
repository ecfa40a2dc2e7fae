"""The same cache once optimum-quanto is installed: pip install "optimum-quanto>=0.2.6"."""

import torch
from transformers import LlamaConfig, QuantizedCache

config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
# After `pip install "optimum-quanto>=0.2.6"` (0.2.5 itself is refused):
cache = QuantizedCache(backend="quanto", config=config, nbits=4)
# --8<-- [end:show]

keys = torch.randn(1, 8, 16, 64, device=device)
cache.update(keys, keys.clone(), layer_idx=0)
assert cache.get_seq_length() == 16
