"""Library code (peft, optimum, serving glue) that checks a model capability flag before choosing a cache."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
cache_implementation = "static" if model._supports_static_cache else None
# --8<-- [end:show]
