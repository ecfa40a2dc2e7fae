"""Find the rotary embedding where the installed release keeps it, instead of assuming one place."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


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
model = LlamaForCausalLM(config).to(device).eval()
hidden_states = torch.randn(1, 4, 64, device=device)
cos, sin = rotary_embedding(model.model)(hidden_states, torch.arange(4, device=device).unsqueeze(0))
assert cos.shape == sin.shape == (1, 4, 16)
