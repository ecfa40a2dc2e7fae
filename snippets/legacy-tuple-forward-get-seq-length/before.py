"""A hand-written decode loop (speculative decoding, KV compression) that keeps the cache as a tuple of pairs."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
past = tuple((torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)) for _ in range(2))  # 4 cached tokens
out = model(torch.tensor([[5]]), past_key_values=past, use_cache=True)
# --8<-- [end:show]
