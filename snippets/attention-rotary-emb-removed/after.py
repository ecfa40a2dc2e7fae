"""Take RoPE from the model, and hand cos/sin to the attention module as `position_embeddings`."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).to(device).eval()
hidden_states = torch.randn(1, 4, 64, device=device)
position_ids = torch.arange(4, device=device).unsqueeze(0)

# --8<-- [start:show]
rope = model.model.rotary_emb  # one rotary embedding for the whole decoder
cos, sin = rope(hidden_states, position_ids)
attn = model.model.layers[0].self_attn
attn_output = attn(hidden_states, position_embeddings=(cos, sin), attention_mask=None)[0]
# --8<-- [end:show]
assert cos.shape == (1, 4, 16) and attn_output.shape == (1, 4, 64)
