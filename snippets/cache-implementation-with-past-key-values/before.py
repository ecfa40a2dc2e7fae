"""A script that builds its own cache and also keeps `cache_implementation` in the generation settings."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
model.generation_config.cache_implementation = "static"  # e.g. shipped in the checkpoint's generation_config.json

# --8<-- [start:show]
output = model.generate(torch.tensor([[1, 2, 3, 4]]), past_key_values=DynamicCache(), max_new_tokens=3,
                        do_sample=False, pad_token_id=0)
# --8<-- [end:show]
