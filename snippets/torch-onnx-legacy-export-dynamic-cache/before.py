"""Legacy (TorchScript) torch.onnx.export of a causal LM with its cache on: the traced forward returns a
DynamicCache, which torch's JIT cannot flatten."""

import io

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 2, 3, 4]])

# --8<-- [start:show]
torch.onnx.export(model, (input_ids,), io.BytesIO(), dynamo=False)
# --8<-- [end:show]
