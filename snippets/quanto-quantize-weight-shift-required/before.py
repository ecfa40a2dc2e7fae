"""The quantized KV cache as the 2024 blog post shows it, on transformers 4.46 with optimum-quanto 0.2.6+."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 2, 3, 4]])

# --8<-- [start:show]
model.generate(input_ids, attention_mask=torch.ones_like(input_ids), max_new_tokens=3, do_sample=False,
               pad_token_id=0, cache_implementation="quantized", cache_config={"backend": "quanto", "nbits": 4})
# --8<-- [end:show]
