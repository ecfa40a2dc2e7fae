"""Take every head count from the config, in one helper, whatever the attention module keeps."""

import torch
from transformers import Phi3Config, Phi3ForCausalLM


# --8<-- [start:show]
def head_counts(attention_module):
    """(query heads, key/value heads, head size) of a decoder attention module, on any release."""
    config = attention_module.config
    heads = config.num_attention_heads
    kv_heads = getattr(config, "num_key_value_heads", None) or heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // heads
    return heads, kv_heads, head_dim
# --8<-- [end:show]


torch.manual_seed(0)
config = Phi3Config(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                    num_key_value_heads=2, vocab_size=128, pad_token_id=0, bos_token_id=1, eos_token_id=2)
model = Phi3ForCausalLM(config).eval()
attn = model.model.layers[0].self_attn
heads, kv_heads, head_dim = head_counts(attn)
qkv = attn.qkv_proj(torch.randn(1, 4, 64))
queries, keys, values = qkv.split([heads * head_dim, kv_heads * head_dim, kv_heads * head_dim], dim=-1)
assert keys.shape == (1, 4, 32)
