"""A decoder forward of one's own, written before 4.48 (OmniGen's `Phi3Transformer`), calls each layer without RoPE."""

import torch
from transformers import Phi3Config, Phi3ForCausalLM

torch.manual_seed(0)
config = Phi3Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=128, pad_token_id=0)
model = Phi3ForCausalLM(config).eval()
hidden_states = torch.randn(1, 4, 64)
position_ids = torch.arange(4).unsqueeze(0)

# --8<-- [start:show]
for decoder_layer in model.model.layers:  # the layers' attention reads `position_embeddings` since 4.48
    layer_outputs = decoder_layer(hidden_states, attention_mask=None, position_ids=position_ids)
    hidden_states = layer_outputs[0] if isinstance(layer_outputs, tuple) else layer_outputs
# --8<-- [end:show]
