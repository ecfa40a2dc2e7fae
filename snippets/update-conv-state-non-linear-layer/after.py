"""The same model, with the block kinds declared in `config.layer_types`."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
config = PreTrainedConfig(
    num_hidden_layers=4,
    layer_types=["conv", "full_attention", "conv", "full_attention"],
)
cache = DynamicCache(config=config)  # "conv" layers get a conv/recurrent state cache

conv_states = torch.randn(2, 256, 3, device=device)  # [batch, channels, kernel]
out = cache.update_conv_state(conv_states, layer_idx=0)
# --8<-- [end:show]

assert out.shape == (2, 256, 3)
keys, _ = cache.update(torch.zeros(2, 8, 3, 32, device=device), torch.zeros(2, 8, 3, 32, device=device), layer_idx=1)
assert cache.get_seq_length() == 3
