"""Compute RoPE once with the decoder's `rotary_emb` and hand it to every layer as `position_embeddings`."""

import torch
from transformers import Phi3Config, Phi3ForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = Phi3Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=128, pad_token_id=0)
model = Phi3ForCausalLM(config).to(device).eval()
hidden_states = torch.randn(1, 4, 64, device=device)
position_ids = torch.arange(4, device=device).unsqueeze(0)

# --8<-- [start:show]
position_embeddings = model.model.rotary_emb(hidden_states, position_ids)  # (cos, sin), as the decoder does
for decoder_layer in model.model.layers:
    layer_outputs = decoder_layer(hidden_states, attention_mask=None, position_ids=position_ids,
                                  position_embeddings=position_embeddings)
    hidden_states = layer_outputs[0] if isinstance(layer_outputs, tuple) else layer_outputs
# --8<-- [end:show]
assert hidden_states.shape == (1, 4, 64)
