"""The same rollback, with crop() given the number of tokens to remove, as a negative int."""

import torch
from transformers import DynamicCache, PretrainedConfig

config = PretrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
)
device = "cuda" if torch.cuda.is_available() else "cpu"
conv_dim, conv_kernel_size, heads, head_dim = 64, 4, 2, 32
cache = DynamicCache(config=config)
cache.activate_past_recording()


def forward(cache, num_tokens):
    for layer_idx, layer_type in enumerate(config.layer_types):
        if layer_type == "linear_attention":
            conv_input = torch.randn(1, conv_dim, num_tokens, device=device)
            cache.update_conv_state(conv_input, layer_idx, conv_kernel_size=conv_kernel_size)
        else:
            kv = torch.randn(1, heads, num_tokens, head_dim, device=device)
            cache.update(kv, kv, layer_idx)


prompt_length = 6
forward(cache, prompt_length)
for _ in range(5):
    forward(cache, 1)

# --8<-- [start:show]
# crop() takes how many tokens to remove. On a hybrid cache get_seq_length() reads the
# first attention layer, since linear-attention layers do not count tokens.
cache.crop(prompt_length - cache.get_seq_length())  # crop(-5)
assert cache.get_seq_length() == prompt_length
# --8<-- [end:show]

forward(cache, 1)  # generate a new answer from the same prompt
assert cache.get_seq_length() == prompt_length + 1
