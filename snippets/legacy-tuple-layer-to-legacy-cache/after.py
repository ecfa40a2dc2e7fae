"""The same layer writes its keys and values into the `Cache` the model hands it, and hands that back."""

import torch
from transformers import MistralConfig, MistralForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128)
model = MistralForCausalLM(config).to(device).eval()


# --8<-- [start:show]
class KeepKeysLayer(torch.nn.Module):
    """Wraps a decoder layer and stores each step's keys and values in the model's `Cache` (4.36 on)."""

    def __init__(self, layer, layer_idx):
        super().__init__()
        self.layer = layer
        self.layer_idx = layer_idx

    def forward(self, hidden_states, past_key_value=None, use_cache=False, **kwargs):
        batch, length, _ = hidden_states.shape
        key = self.layer.self_attn.k_proj(hidden_states).view(batch, length, -1, 16).transpose(1, 2)
        value = self.layer.self_attn.v_proj(hidden_states).view(batch, length, -1, 16).transpose(1, 2)
        hidden_states = self.layer(hidden_states, **kwargs)[0]
        if not use_cache:
            return (hidden_states,)
        past_key_value.update(key, value, self.layer_idx)  # the Cache object the model passed in
        return (hidden_states, past_key_value)


model.model.layers = torch.nn.ModuleList(KeepKeysLayer(layer, i) for i, layer in enumerate(model.model.layers))
outputs = model(torch.tensor([[1, 2, 3, 4]], device=device), use_cache=True)
# --8<-- [end:show]
assert outputs.logits.shape == (1, 4, 128)
