"""The cache is an attribute of the model output, on every release."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
input_ids = torch.tensor([[1, 2, 3, 4]], device=device)

# --8<-- [start:show]
outputs = model(input_ids, use_cache=True)
past_key_values = outputs.past_key_values
next_token = outputs.logits[:, -1:].argmax(-1)
outputs = model(next_token, past_key_values=past_key_values, use_cache=True)
# --8<-- [end:show]
assert outputs.logits.shape == (1, 1, 128)
