"""Read the head count from the module's config, which every release has."""

import torch
from transformers import Phi3Config, Phi3ForCausalLM

torch.manual_seed(0)
config = Phi3Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=128, pad_token_id=0, bos_token_id=1, eos_token_id=2)
model = Phi3ForCausalLM(config).eval()
attn = model.model.layers[0].self_attn
hidden_states = torch.randn(1, 4, 64)

# --8<-- [start:show]
qkv = attn.qkv_proj(hidden_states)
query_pos = attn.config.num_attention_heads * attn.head_dim
queries = qkv[..., :query_pos]
# --8<-- [end:show]
assert queries.shape == (1, 4, 64)
