"""Beam-search helper calling the model-level `_reorder_cache`, which 4.54 removed from every model (4.43-4.53 raise NotImplementedError)."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
past_key_values = tuple((torch.randn(2, 2, 4, 16), torch.randn(2, 2, 4, 16)) for _ in range(2))  # 2 beams

# --8<-- [start:show]
beam_idx = torch.tensor([1, 1])  # both beams continue from beam 1
past_key_values = model._reorder_cache(past_key_values, beam_idx)
# --8<-- [end:show]
