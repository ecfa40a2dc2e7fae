"""Let generate() run the loop: it carries the cache between steps on every release."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()

# --8<-- [start:show]
output = model.generate(torch.tensor([[1, 2, 3, 4]], device=device), max_new_tokens=3, do_sample=False, pad_token_id=0)
# --8<-- [end:show]
