"""A decoder layer from KV-cache code written for 4.35 hands back its keys and values as a (key, value) tuple."""

import torch
from transformers import MistralConfig, MistralForCausalLM

torch.manual_seed(0)
config = MistralConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                       num_key_value_heads=2, vocab_size=128)
model = MistralForCausalLM(config).eval()


# --8<-- [start:show]
class KeepKeysLayer(torch.nn.Module):
    """Wraps a decoder layer and keeps each step's keys and values, the way pre-4.36 code did: as a tuple."""

    def __init__(self, layer):
        super().__init__()
        self.layer = layer

    def forward(self, hidden_states, past_key_value=None, use_cache=False, **kwargs):
        key = self.layer.self_attn.k_proj(hidden_states)
        value = self.layer.self_attn.v_proj(hidden_states)
        hidden_states = self.layer(hidden_states, **kwargs)[0]
        return (hidden_states, (key, value)) if use_cache else (hidden_states,)


model.model.layers = torch.nn.ModuleList(KeepKeysLayer(layer) for layer in model.model.layers)
model(torch.tensor([[1, 2, 3, 4]]), use_cache=True)  # the model turns the last layer's "cache" into tuples
# --8<-- [end:show]
