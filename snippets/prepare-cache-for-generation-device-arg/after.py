"""Build the cache through the public API and hand it over as past_key_values."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
model_kwargs = {}

# --8<-- [start:show]
model_kwargs["past_key_values"] = DynamicCache(config=model.config)  # 4.56+ (plain DynamicCache() before)
output = model.generate(torch.tensor([[1, 2, 3, 4]]), max_new_tokens=3, do_sample=False, pad_token_id=0,
                        **model_kwargs)
# --8<-- [end:show]
