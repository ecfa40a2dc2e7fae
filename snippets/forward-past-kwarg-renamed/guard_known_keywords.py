"""Refuse a keyword the forward does not name, instead of a TypeError (or, from 4.48, silence)."""

import inspect

import torch
from transformers import GPT2Config, GPT2LMHeadModel

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64)
model = GPT2LMHeadModel(config).to(device).eval()
context = torch.tensor([[1, 2, 3, 4]], device=device)


# --8<-- [start:show]
def call_model(model, input_ids, **inputs):
    """Call the model with keywords its forward names; `**kwargs` would take an old name silently."""
    named = inspect.signature(model.forward).parameters
    unknown = sorted(key for key in inputs if key not in named)
    if unknown:
        raise ValueError(f"{type(model).__name__}.forward() has no parameter {unknown}; "
                         "the cache argument is past_key_values since transformers 4.0")
    return model(input_ids, **inputs)


output = call_model(model, context, past_key_values=None, use_cache=True)  # runs on every release
output = call_model(model, context[:, -1:], past=output.past_key_values)   # stopped with the fix in the message
# --8<-- [end:show]
