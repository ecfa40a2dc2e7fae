"""4.56 dropped the per-model flag: build the QuantizedCache from the config; it rejects non-full-attention layers itself."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM, QuantizedCache

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
cache = QuantizedCache(backend="quanto", config=model.config, nbits=4)  # needs optimum-quanto
output = model.generate(torch.tensor([[1, 2, 3, 4]]), past_key_values=cache, max_new_tokens=2, do_sample=False,
                        pad_token_id=0)
# --8<-- [end:show]
