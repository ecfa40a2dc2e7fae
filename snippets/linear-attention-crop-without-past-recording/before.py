"""A hand-written speculative-decoding step on a hybrid linear-attention model (Qwen3-Next style)."""

import torch
from transformers import DynamicCache, PretrainedConfig

# Three linear-attention (gated DeltaNet) layers, then one full-attention layer.
config = PretrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
)
device = "cuda" if torch.cuda.is_available() else "cpu"
conv_dim, conv_kernel_size, heads, head_dim = 64, 4, 2, 32
cache = DynamicCache(config=config)


def forward(cache, num_tokens):
    """Stand-in for the model's layers: each one stores its new state in the cache."""
    for layer_idx, layer_type in enumerate(config.layer_types):
        if layer_type == "linear_attention":
            conv_input = torch.randn(1, conv_dim, num_tokens, device=device)
            cache.update_conv_state(conv_input, layer_idx, conv_kernel_size=conv_kernel_size)
            cache.update_recurrent_state(torch.randn(1, heads, head_dim, head_dim, device=device), layer_idx)
        else:
            kv = torch.randn(1, heads, num_tokens, head_dim, device=device)
            cache.update(kv, kv, layer_idx)


forward(cache, 6)  # prefill: the prompt
forward(cache, 4)  # verify 4 draft tokens in one pass

# --8<-- [start:show]
# The target model accepted 2 of the 4 drafts: drop the 2 rejected ones.
cache.crop(-2)
# --8<-- [end:show]
