"""Pass RoPE to the layers where the installed release's decoder computes it, and nothing where it does not."""

import torch
from transformers import Phi3Config, Phi3ForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def rope_kwargs(decoder, hidden_states, position_ids):
    """`position_embeddings` for the layers when the decoder owns a `rotary_emb` (4.48 on), else nothing."""
    rope = getattr(decoder, "rotary_emb", None)
    if rope is None:  # older releases: each attention module computes RoPE from `position_ids`
        return {}
    return {"position_embeddings": rope(hidden_states, position_ids)}
# --8<-- [end:show]


torch.manual_seed(0)
config = Phi3Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=128, pad_token_id=0)
model = Phi3ForCausalLM(config).to(device).eval()
hidden_states = torch.randn(1, 4, 64, device=device)
position_ids = torch.arange(4, device=device).unsqueeze(0)
extra = rope_kwargs(model.model, hidden_states, position_ids)
for decoder_layer in model.model.layers:
    layer_outputs = decoder_layer(hidden_states, attention_mask=None, position_ids=position_ids, **extra)
    hidden_states = layer_outputs[0] if isinstance(layer_outputs, tuple) else layer_outputs
assert hidden_states.shape == (1, 4, 64)
