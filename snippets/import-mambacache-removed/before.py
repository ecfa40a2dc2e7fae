"""Code written for 4.44-5.4 that builds the Mamba state cache itself."""

import torch
from transformers import MambaConfig, MambaForCausalLM

torch.manual_seed(0)
config = MambaConfig(num_hidden_layers=2, hidden_size=32, vocab_size=128)
model = MambaForCausalLM(config).eval()

# --8<-- [start:show]
from transformers import MambaCache  # gone since transformers 5.5

cache = MambaCache(config, max_batch_size=1, dtype=torch.float32)
# --8<-- [end:show]
