"""If the private helper must be called, match its signature at run time; otherwise build the cache yourself."""

import inspect

import torch
from transformers import DynamicCache, GenerationConfig, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
generation_config, model_kwargs = GenerationConfig(max_new_tokens=3), {"past_key_values": DynamicCache()}

# --8<-- [start:show]
args = [generation_config, model_kwargs, None, 1, 16]
if "device" in inspect.signature(model._prepare_cache_for_generation).parameters:  # 4.45-4.55
    args.append(torch.device("cpu"))
model._prepare_cache_for_generation(*args)  # keeps a cache passed in model_kwargs
# --8<-- [end:show]
assert isinstance(model_kwargs["past_key_values"], DynamicCache)
