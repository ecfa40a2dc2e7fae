"""The attention mask covers every position the keys will have: the cached ones and the new ones."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
prompt = torch.tensor([[1, 2, 3, 4, 5, 6]], device=device)
prefill = model(prompt, attention_mask=torch.ones(1, 6, dtype=torch.long, device=device),
                past_key_values=DynamicCache(), use_cache=True)
cache = prefill.past_key_values

# --8<-- [start:show]
follow_up = torch.tensor([[7, 8]], device=device)
attention_mask = torch.ones(1, cache.get_seq_length() + follow_up.shape[1], dtype=torch.long,
                            device=device)  # 6 cached + 2 new
outputs = model(follow_up, attention_mask=attention_mask, past_key_values=cache, use_cache=True)
# --8<-- [end:show]
assert outputs.logits.shape == (1, 2, 128)
