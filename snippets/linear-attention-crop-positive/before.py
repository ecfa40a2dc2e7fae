"""Cutting a hybrid model's cache back to the end of the prompt with the old absolute-length crop()."""

import torch
from transformers import DynamicCache, PretrainedConfig

config = PretrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
)
device = "cuda" if torch.cuda.is_available() else "cpu"
conv_dim, conv_kernel_size, heads, head_dim = 64, 4, 2, 32
cache = DynamicCache(config=config)
cache.activate_past_recording()  # so the answer can be taken back


def forward(cache, num_tokens):
    """Stand-in for the model's layers: each one stores its new state in the cache."""
    for layer_idx, layer_type in enumerate(config.layer_types):
        if layer_type == "linear_attention":
            conv_input = torch.randn(1, conv_dim, num_tokens, device=device)
            cache.update_conv_state(conv_input, layer_idx, conv_kernel_size=conv_kernel_size)
        else:
            kv = torch.randn(1, heads, num_tokens, head_dim, device=device)
            cache.update(kv, kv, layer_idx)


prompt_length = 6
forward(cache, prompt_length)  # the prompt
for _ in range(5):             # five generated tokens
    forward(cache, 1)

# --8<-- [start:show]
# "Regenerate": drop the answer and keep the prompt, passing the length to keep.
cache.crop(prompt_length)
# --8<-- [end:show]
