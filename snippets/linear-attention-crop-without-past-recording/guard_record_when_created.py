"""Create every cache that may be rolled back through one factory that switches recording on."""

import torch
from transformers import DynamicCache, PretrainedConfig

config = PretrainedConfig(
    num_hidden_layers=4,
    layer_types=["linear_attention", "linear_attention", "linear_attention", "full_attention"],
)
device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def new_speculative_cache(config):
    cache = DynamicCache(config=config)
    cache.activate_past_recording()  # linear-attention and sliding-window layers alike
    return cache
# --8<-- [end:show]


cache = new_speculative_cache(config)
for new_tokens, rejected in [(6, 0), (4, 2), (4, 0), (4, 3)]:
    for layer_idx, layer_type in enumerate(config.layer_types):
        if layer_type == "linear_attention":
            conv_input = torch.randn(1, 64, new_tokens, device=device)
            cache.update_conv_state(conv_input, layer_idx, conv_kernel_size=4)
        else:
            kv = torch.randn(1, 2, new_tokens, 32, device=device)
            cache.update(kv, kv, layer_idx)
    cache.crop(-rejected)  # after every step, so recorded convolution inputs do not pile up
    assert cache.layers[0].conv_states[0].shape[-1] == 4
