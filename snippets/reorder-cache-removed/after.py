"""Reorder through the cache object: `Cache.reorder_cache(beam_idx)` exists in every release since 4.36."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(2, 2, 4, 16, device=device), torch.randn(2, 2, 4, 16, device=device), layer_idx)

# --8<-- [start:show]
beam_idx = torch.tensor([1, 1], device=device)
cache.reorder_cache(beam_idx)  # in place
# --8<-- [end:show]
assert cache.get_seq_length() == 4
