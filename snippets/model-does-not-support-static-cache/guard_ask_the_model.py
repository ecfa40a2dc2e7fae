"""Request a static cache only from models whose class allows it (flag renamed in 4.56)."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


class MyCausalLM(LlamaForCausalLM):
    _supports_static_cache = False


# --8<-- [start:show]
def cache_implementation_for(model):
    supports = getattr(model, "_supports_static_cache", None)  # 4.38-4.55
    if supports is None:
        supports = getattr(model, "_can_compile_fullgraph", False)  # 4.56+
    return "static" if supports else None
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = MyCausalLM(config).to(device).eval()
output = model.generate(torch.tensor([[1, 2, 3, 4]], device=device),
                        cache_implementation=cache_implementation_for(model), max_new_tokens=3, do_sample=False,
                        pad_token_id=0)
