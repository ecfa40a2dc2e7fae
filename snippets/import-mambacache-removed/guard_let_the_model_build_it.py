"""Let the model create its own state: generate() builds the right cache class on every release."""

import torch
from transformers import MambaConfig, MambaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = MambaConfig(num_hidden_layers=2, hidden_size=32, vocab_size=128)
model = MambaForCausalLM(config).to(device).eval()

# --8<-- [start:show]
output = model.generate(torch.tensor([[1, 2, 3, 4]], device=device), max_new_tokens=3, do_sample=False, pad_token_id=0)
# --8<-- [end:show]
