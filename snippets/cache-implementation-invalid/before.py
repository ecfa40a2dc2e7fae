"""A training/serving script that asks generate() for a cache by name, a name this release does not know."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
# "sink" and "mamba" were never generate() options; "dynamic_full" was dropped in 5.15
output = model.generate(torch.tensor([[1, 2, 3, 4]]), cache_implementation="sink", max_new_tokens=3,
                        do_sample=False, pad_token_id=0)
# --8<-- [end:show]
