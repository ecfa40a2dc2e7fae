"""Vendored generation loop (VibeVoice style) calling the private cache set-up with the 4.45-4.55 signature."""

import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
generation_config, model_kwargs = GenerationConfig(max_new_tokens=3), {}

# --8<-- [start:show]
model._prepare_cache_for_generation(generation_config, model_kwargs, None, 1, 16, torch.device("cpu"))
cache = model_kwargs["past_key_values"]
# --8<-- [end:show]
