"""Export the forward without the cache in its output: every output is then a tensor torch knows."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 2, 3, 4]])

# --8<-- [start:show]
program = torch.export.export(model, (input_ids,), {"use_cache": False})
# --8<-- [end:show]
logits = program.module()(input_ids, use_cache=False).logits
assert torch.allclose(logits, model(input_ids, use_cache=False).logits, atol=1e-5)
