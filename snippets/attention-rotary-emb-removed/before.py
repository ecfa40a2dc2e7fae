"""KV-cache compression code (InfLLM, OmniQuant style) that takes RoPE from the attention module, the 4.47 way."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
hidden_states = torch.randn(1, 4, 64)
position_ids = torch.arange(4).unsqueeze(0)

# --8<-- [start:show]
rope = model.model.layers[0].self_attn.rotary_emb  # attention modules stopped owning RoPE in 4.48
cos, sin = rope(hidden_states, position_ids)
# --8<-- [end:show]
