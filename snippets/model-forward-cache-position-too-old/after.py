"""Pass `cache_position` only where the installed LlamaModel.forward accepts it (4.38+)."""

import inspect

import torch
from transformers import DynamicCache, LlamaConfig, LlamaModel

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
gpt = LlamaModel(config).to(device).eval()
inputs_embeds = torch.randn(1, 4, 64, device=device)

# --8<-- [start:show]
model_input = {
    "inputs_embeds": inputs_embeds,
    "attention_mask": torch.ones(1, 4, dtype=torch.long, device=device),
    "past_key_values": DynamicCache(),
    "use_cache": True,
}
if "cache_position" in inspect.signature(gpt.forward).parameters:  # transformers 4.38 and later
    model_input["cache_position"] = torch.arange(4, device=device)
outputs = gpt.forward(**model_input)
# --8<-- [end:show]
assert outputs.last_hidden_state.shape == (1, 4, 64)
