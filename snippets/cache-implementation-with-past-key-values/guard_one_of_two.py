"""Refuse the combination at your own boundary, naming where the setting came from."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
model.generation_config.cache_implementation = "static"


# --8<-- [start:show]
def generate_with_cache(model, input_ids, cache, **kwargs):
    configured = kwargs.get("cache_implementation", model.generation_config.cache_implementation)
    if cache is not None and configured is not None:
        kwargs["cache_implementation"] = None  # the explicit cache object wins
    return model.generate(input_ids, past_key_values=cache, **kwargs)
# --8<-- [end:show]


generate_with_cache(model, torch.tensor([[1, 2, 3, 4]], device=device), DynamicCache(), max_new_tokens=3,
                    do_sample=False, pad_token_id=0)
