"""Read the flag with a default: releases without it (4.54+) take Cache objects in every model."""

import inspect

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
if getattr(model, "_supports_cache_class", True):  # absent from 4.54: every model takes a Cache
    takes_config = "config" in inspect.signature(DynamicCache.__init__).parameters  # 4.56+
    cache = DynamicCache(config=model.config) if takes_config else DynamicCache()
    out = model(torch.tensor([[1, 2, 3, 4]]), past_key_values=cache, use_cache=True)
# --8<-- [end:show]
