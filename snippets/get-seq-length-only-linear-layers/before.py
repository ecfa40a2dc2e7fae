"""A tiny test model cut from a 3:1 hybrid: the first two layers are all linear attention."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"
pattern = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 12

# --8<-- [start:show]
num_layers = 2  # shrink the model for a quick test
config = PreTrainedConfig(num_hidden_layers=num_layers, layer_types=pattern[:num_layers])
cache = DynamicCache(config=config)
for idx in range(num_layers):  # prefill: each linear layer stores its recurrent state
    cache.update_recurrent_state(torch.randn(1, 4, 16, 16, device=device), idx)

past_length = cache.get_seq_length()  # e.g. to compute the next position ids
# --8<-- [end:show]
