"""The same legacy export with the cache off (and the attention mask passed): every output is a tensor."""

import io

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).to(device).eval()
input_ids = torch.tensor([[1, 2, 3, 4]], device=device)

# --8<-- [start:show]
model.config.use_cache = False
buffer = io.BytesIO()
torch.onnx.export(model, (input_ids, torch.ones_like(input_ids)), buffer, dynamo=False)
# --8<-- [end:show]
assert buffer.getvalue()
