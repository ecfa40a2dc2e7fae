"""QuantizedCache(backend="quanto", config=...) with the settings as keywords (4.56+); needs optimum-quanto."""

import torch
from transformers import LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
from transformers import QuantizedCache

cache = QuantizedCache(backend="quanto", config=config, nbits=4, q_group_size=16, residual_length=2)
# --8<-- [end:show]
for layer_idx in range(2):
    cache.update(torch.randn(1, 2, 3, 16), torch.randn(1, 2, 3, 16), layer_idx)
assert cache.get_seq_length() == 3
