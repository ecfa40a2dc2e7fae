"""Let the model build its own cache: a forward (or generate) with use_cache=True works on every release."""

import torch
from transformers import GraniteMoeHybridConfig, GraniteMoeHybridForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = GraniteMoeHybridConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=64, num_attention_heads=4,
                                num_key_value_heads=2, vocab_size=128, layer_types=["mamba", "attention"],
                                mamba_n_heads=4, mamba_d_head=32, mamba_d_state=16, mamba_n_groups=1,
                                num_local_experts=0, shared_intermediate_size=64)
model = GraniteMoeHybridForCausalLM(config).to(device).eval()

# --8<-- [start:show]
out = model(torch.tensor([[1, 2, 3, 4]], device=device), use_cache=True)
cache = out.past_key_values  # whatever class this release uses for the hybrid state
next_out = model(torch.tensor([[5]], device=device), past_key_values=cache, use_cache=True)
# --8<-- [end:show]
assert next_out.logits.shape == (1, 1, 128)
