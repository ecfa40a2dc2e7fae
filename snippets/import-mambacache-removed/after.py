"""5.5+: a Mamba model keeps its state in a DynamicCache built from its config (one state layer per block)."""

import torch
from transformers import MambaConfig, MambaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = MambaConfig(num_hidden_layers=2, hidden_size=32, vocab_size=128)
model = MambaForCausalLM(config).to(device).eval()

# --8<-- [start:show]
from transformers import DynamicCache

cache = DynamicCache(config=config)
out = model(torch.tensor([[1, 2, 3, 4]], device=device), cache_params=cache, use_cache=True)
# --8<-- [end:show]
assert len(cache.layers) == 2 and out.logits.shape == (1, 4, 128)
