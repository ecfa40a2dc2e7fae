"""generate() into a StaticCache smaller than prompt + new tokens, on 4.43-4.52 (written with the 4.x constructor)."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM, StaticCache

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()

# --8<-- [start:show]
cache = StaticCache(config=config, max_batch_size=1, max_cache_len=5, device="cpu", dtype=torch.float32)
output = model.generate(torch.tensor([[1, 2, 3, 4]]), past_key_values=cache, max_new_tokens=3, min_new_tokens=3,
                        do_sample=False, pad_token_id=0)  # needs 4 + 3 - 1 = 6 positions
# --8<-- [end:show]
