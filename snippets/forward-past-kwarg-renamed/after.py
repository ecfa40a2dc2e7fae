"""Since transformers 4.0 the cache goes in as `past_key_values` and comes back as `output.past_key_values`."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64)
model = GPT2LMHeadModel(config).to(device).eval()
context = torch.tensor([[1, 2, 3, 4]], device=device)

# --8<-- [start:show]
past = None
generated = context
with torch.no_grad():
    for _ in range(3):
        step_input = generated if past is None else generated[:, -1:]  # with a cache, only the new token
        output = model(step_input, past_key_values=past, use_cache=True)
        past = output.past_key_values  # not `logits, past = model(...)`: the output is a ModelOutput
        generated = torch.cat([generated, output.logits[:, -1:].argmax(-1)], dim=-1)
# --8<-- [end:show]
assert generated.shape == (1, 7)
