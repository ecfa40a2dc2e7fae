"""Let the cache pick each layer's class from the config's `layer_types` instead of mixing by hand."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
config = PreTrainedConfig(
    num_hidden_layers=4,
    sliding_window=4096,
    layer_types=["sliding_attention", "sliding_attention", "full_attention", "full_attention"],
)
cache = DynamicCache(config=config)  # calls Cache.__init__(layers=[...]) with one layer per type
# --8<-- [end:show]

for layer_idx in range(len(cache)):
    cache.update(torch.zeros(1, 8, 5, 64, device=device), torch.zeros(1, 8, 5, 64, device=device), layer_idx)
assert cache.is_sliding == [True, True, False, False]
