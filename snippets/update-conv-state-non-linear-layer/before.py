"""A hybrid model (short-convolution blocks + attention) whose config forgot `layer_types`."""

import torch
from transformers import DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"

# --8<-- [start:show]
# Blocks 0 and 2 are short convolutions, 1 and 3 attention; the config does not say so.
config = PreTrainedConfig(num_hidden_layers=4)
cache = DynamicCache(config=config)  # every layer becomes a key/value (attention) layer

# What the convolution block 0 does during prefill: cache its last `kernel` inputs.
conv_states = torch.randn(2, 256, 3, device=device)  # [batch, channels, kernel]
cache.update_conv_state(conv_states, layer_idx=0)
# --8<-- [end:show]
