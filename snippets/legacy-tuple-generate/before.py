"""Continue generation from a prompt cache kept in the tuple format (per layer a (key, value) pair)."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
prompt = torch.tensor([[1, 2, 3, 4]])
# a prompt cache stored earlier as plain tensors (e.g. saved to disk, or built by other code)
prompt_cache = tuple((torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16)) for _ in range(2))

# --8<-- [start:show]
output = model.generate(torch.cat([prompt, torch.tensor([[5]])], dim=1), past_key_values=prompt_cache,
                        max_new_tokens=3, do_sample=False, pad_token_id=0)
# --8<-- [end:show]
