"""4.54+ call the capability `_can_compile_fullgraph` (static cache and torch.compile support)."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM, StaticCache

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
if model._can_compile_fullgraph:
    cache = StaticCache(config=model.config, max_cache_len=16)
# --8<-- [end:show]
    out = model(torch.tensor([[1, 2, 3, 4]]), past_key_values=cache, use_cache=True)
    assert out.logits.shape == (1, 4, 128)
