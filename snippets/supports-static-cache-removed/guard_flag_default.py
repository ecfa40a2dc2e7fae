"""Read whichever capability flag the release has, with a safe default."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()


# --8<-- [start:show]
def supports_static_cache(model):
    """True when the model can run with a StaticCache (4.38 - 5.x)."""
    for flag in ("_supports_static_cache", "_can_compile_fullgraph"):  # up to 4.53 / from 4.54
        value = getattr(model, flag, None)
        if value is not None:
            return bool(value)
    return False


cache_implementation = "static" if supports_static_cache(model) else None
output = model.generate(torch.tensor([[1, 2, 3, 4]]), cache_implementation=cache_implementation, max_new_tokens=3,
                        do_sample=False, pad_token_id=0)
# --8<-- [end:show]
