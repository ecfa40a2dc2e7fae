"""Size the cache for the prompt plus every generated token."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM, StaticCache

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
prompt = torch.tensor([[1, 2, 3, 4]])
max_new_tokens = 3
cache = StaticCache(config=config, max_batch_size=1, max_cache_len=prompt.shape[1] + max_new_tokens, device="cpu",
                    dtype=torch.float32)
output = model.generate(prompt, past_key_values=cache, max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens,
                        do_sample=False, pad_token_id=0)
# --8<-- [end:show]
