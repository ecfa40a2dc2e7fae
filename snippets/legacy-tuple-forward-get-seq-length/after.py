"""Give the model a Cache: a DynamicCache filled layer by layer with `update` (works on every release)."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()

# --8<-- [start:show]
past = tuple((torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device)) for _ in range(2))
cache = DynamicCache()
for layer_idx, (keys, values) in enumerate(past):
    cache.update(keys, values, layer_idx)
out = model(torch.tensor([[5]], device=device), past_key_values=cache, use_cache=True)
# --8<-- [end:show]
assert out.past_key_values.get_seq_length() == 5
