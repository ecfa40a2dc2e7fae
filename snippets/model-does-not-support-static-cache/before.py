"""Compiled-generation recipe (unsloth / optimum style) applied to a model class that opts out of static caches."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


class MyCausalLM(LlamaForCausalLM):  # stands for a remote-code or older architecture
    _supports_static_cache = False


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = MyCausalLM(config).eval()

# --8<-- [start:show]
output = model.generate(torch.tensor([[1, 2, 3, 4]]), cache_implementation="static", max_new_tokens=3,
                        do_sample=False, pad_token_id=0)
# --8<-- [end:show]
