"""Hand back whatever kind of cache the model passed in: a `Cache` updated in place, else the legacy tuple."""

import torch
from transformers import MistralConfig, MistralForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def store(past_key_value, key, value, layer_idx):
    """The layer's cache output in the format its model expects: the Cache it got, or a (key, value) pair."""
    if hasattr(past_key_value, "update"):  # a Cache (4.36 on): write into it and return the same object
        past_key_value.update(key, value, layer_idx)
        return past_key_value
    return (key, value)  # a model that still passes legacy tuples (or None) between its layers
# --8<-- [end:show]


class KeepKeysLayer(torch.nn.Module):
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
        return (hidden_states, store(past_key_value, key, value, self.layer_idx))


torch.manual_seed(0)
config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128)
model = MistralForCausalLM(config).to(device).eval()
model.model.layers = torch.nn.ModuleList(KeepKeysLayer(layer, i) for i, layer in enumerate(model.model.layers))
outputs = model(torch.tensor([[1, 2, 3, 4]], device=device), use_cache=True)
assert outputs.logits.shape == (1, 4, 128)
