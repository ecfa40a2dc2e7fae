"""4.56 dropped the flag: every model takes Cache objects, so build one and pass it."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
cache = DynamicCache(config=model.config)
out = model(torch.tensor([[1, 2, 3, 4]]), past_key_values=cache, use_cache=True)
# --8<-- [end:show]
assert out.past_key_values.get_seq_length() == 4
