"""Put the pairs into a DynamicCache, layer by layer, before handing them to generate()."""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
prompt = torch.tensor([[1, 2, 3, 4]], device=device)
prompt_cache = tuple((torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device))
                     for _ in range(2))

# --8<-- [start:show]
cache = DynamicCache()
for layer_idx, (keys, values) in enumerate(prompt_cache):
    cache.update(keys, values, layer_idx)
output = model.generate(torch.cat([prompt, torch.tensor([[5]], device=device)], dim=1), past_key_values=cache,
                        max_new_tokens=3, do_sample=False, pad_token_id=0)
# --8<-- [end:show]
assert output.shape[1] >= 6
