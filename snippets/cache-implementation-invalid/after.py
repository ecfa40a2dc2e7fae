"""Use one of the names the installed release lists: "static" is accepted from 4.38 to 5.x."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
output = model.generate(torch.tensor([[1, 2, 3, 4]]), cache_implementation="static", max_new_tokens=3,
                        do_sample=False, pad_token_id=0)
# --8<-- [end:show]
