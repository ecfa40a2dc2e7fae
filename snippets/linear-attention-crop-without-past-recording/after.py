"""The same speculative-decoding step, with past recording switched on before the prefill."""

import torch
from transformers import DynamicCache, PretrainedConfig

config = PretrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
)
device = "cuda" if torch.cuda.is_available() else "cpu"
conv_dim, conv_kernel_size, heads, head_dim = 64, 4, 2, 32
cache = DynamicCache(config=config)


def forward(cache, num_tokens):
    for layer_idx, layer_type in enumerate(config.layer_types):
        if layer_type == "linear_attention":
            conv_input = torch.randn(1, conv_dim, num_tokens, device=device)
            cache.update_conv_state(conv_input, layer_idx, conv_kernel_size=conv_kernel_size)
            cache.update_recurrent_state(torch.randn(1, heads, head_dim, head_dim, device=device), layer_idx)
        else:
            kv = torch.randn(1, heads, num_tokens, head_dim, device=device)
            cache.update(kv, kv, layer_idx)


# --8<-- [start:show]
# Linear-attention layers now keep every convolution input until `crop` says what is final.
cache.activate_past_recording()

forward(cache, 6)  # prefill
forward(cache, 4)  # 4 draft tokens

cache.crop(-2)  # roll back the 2 rejected drafts; conv states shrink back to the kernel size
assert cache.get_seq_length() == 8
assert cache.layers[0].conv_states[0].shape[-1] == conv_kernel_size
# --8<-- [end:show]

forward(cache, 1)  # decoding goes on from the accepted tokens
assert cache.get_seq_length() == 9
