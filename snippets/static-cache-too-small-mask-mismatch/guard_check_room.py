"""Refuse a request that cannot fit, before generate() starts, with the numbers in the message."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM, StaticCache

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
cache = StaticCache(config=config, max_batch_size=1, max_cache_len=5, device="cpu", dtype=torch.float32)


# --8<-- [start:show]
def generate_into(cache, capacity, prompt, max_new_tokens):
    if prompt.shape[1] + max_new_tokens > capacity:
        raise ValueError(f"static cache of {capacity} positions cannot hold {prompt.shape[1]} prompt tokens "
                         f"+ {max_new_tokens} new tokens")
    return model.generate(prompt, past_key_values=cache, max_new_tokens=max_new_tokens, do_sample=False,
                          pad_token_id=0)


roomy = StaticCache(config=config, max_batch_size=1, max_cache_len=8, device="cpu", dtype=torch.float32)
generate_into(roomy, 8, torch.tensor([[1, 2, 3, 4]]), max_new_tokens=3)  # room for all 7: generated
generate_into(cache, 5, torch.tensor([[1, 2, 3, 4]]), max_new_tokens=3)
# --8<-- [end:show]
