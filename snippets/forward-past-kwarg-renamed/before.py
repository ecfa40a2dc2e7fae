"""A GPT-2 decoding step written for transformers 3.x: the cache passed back as `past`."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=128, n_positions=64)
model = GPT2LMHeadModel(config).eval()
context = torch.tensor([[1, 2, 3, 4]])

# --8<-- [start:show]
past = None
output = model.forward(context, past=past)  # transformers 3.x named the cache argument `past`
# --8<-- [end:show]
