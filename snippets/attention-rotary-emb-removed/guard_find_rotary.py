"""Find the rotary embedding where the installed release keeps it, instead of assuming one place."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
def rotary_embedding(decoder, layer_idx=0):
    """The decoder's RoPE module: on the decoder itself (Llama since 4.43), else on each attention module."""
    rope = getattr(decoder, "rotary_emb", None)
    if rope is None:  # releases before the model-level embedding
        rope = decoder.layers[layer_idx].self_attn.rotary_emb
    return rope
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()
cos, sin = rotary_embedding(model.model)(torch.randn(1, 4, 64), torch.arange(4).unsqueeze(0))
assert cos.shape == sin.shape == (1, 4, 16)
