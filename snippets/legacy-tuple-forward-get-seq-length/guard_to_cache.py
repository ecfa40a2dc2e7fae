"""Convert tuples (or lists) of pairs to a DynamicCache on any release, at the call site."""

import torch
from transformers import Cache, DynamicCache, LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def as_cache(past_key_values):
    if past_key_values is None or isinstance(past_key_values, Cache):
        return past_key_values
    cache = DynamicCache()
    for layer_idx, (keys, values, *_) in enumerate(past_key_values):
        cache.update(keys, values, layer_idx)
    return cache
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
past = [(torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device)) for _ in range(2)]
out = model(torch.tensor([[5]], device=device), past_key_values=as_cache(past), use_cache=True)
assert out.past_key_values.get_seq_length() == 5
