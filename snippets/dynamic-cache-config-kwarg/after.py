"""Before 4.56, build it bare: layers are appended on the first update of each layer."""

import torch
from transformers import DynamicCache, LlamaConfig

config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)

# --8<-- [start:show]
cache = DynamicCache()
# --8<-- [end:show]
cache.update(torch.randn(1, 2, 3, 16), torch.randn(1, 2, 3, 16), 0)
assert cache.get_seq_length() == 3
