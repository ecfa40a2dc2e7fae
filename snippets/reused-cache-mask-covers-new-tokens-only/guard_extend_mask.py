"""Extend a mask that covers only the new tokens with the cached positions, before the forward call."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def full_attention_mask(attention_mask, cache, new_tokens):
    """A 2-D mask over the cached and the new positions, from a mask over either."""
    if attention_mask.shape[1] == new_tokens:  # only the new tokens: the cached positions are all attended
        cached = attention_mask.new_ones(attention_mask.shape[0], cache.get_seq_length())
        return torch.cat([cached, attention_mask], dim=-1)
    return attention_mask
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
prefill = model(torch.tensor([[1, 2, 3, 4, 5, 6]], device=device),
                attention_mask=torch.ones(1, 6, dtype=torch.long, device=device),
                past_key_values=DynamicCache(), use_cache=True)
cache = prefill.past_key_values
follow_up = torch.tensor([[7, 8]], device=device)
mask = full_attention_mask(torch.ones(1, 2, dtype=torch.long, device=device), cache, follow_up.shape[1])
outputs = model(follow_up, attention_mask=mask, past_key_values=cache, use_cache=True)
assert mask.shape == (1, 8) and outputs.logits.shape == (1, 2, 128)
