"""5.5+: the model keeps attention and Mamba state in one DynamicCache built from its config."""

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
from transformers import DynamicCache

cache = DynamicCache(config=config)  # one state layer for the mamba block, one attention layer
out = model(torch.tensor([[1, 2, 3, 4]], device=device), past_key_values=cache, use_cache=True)
# --8<-- [end:show]
assert out.logits.shape == (1, 4, 128) and len(cache.layers) == 2
