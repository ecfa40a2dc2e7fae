"""Asking generate() for a quantized cache with its settings only, forgetting which cache to build."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 2, 3, 4]])

# --8<-- [start:show]
out = model.generate(input_ids, attention_mask=torch.ones(1, 4, dtype=torch.long), do_sample=False, max_new_tokens=3,
                     pad_token_id=0, cache_config={"backend": "quanto", "nbits": 4})
# --8<-- [end:show]
