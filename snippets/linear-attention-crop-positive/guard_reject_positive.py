"""Reject the old absolute-length form before it reaches a hybrid cache."""

import torch
from transformers import DynamicCache, PretrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def rollback(cache, tokens_to_remove):
    if tokens_to_remove > 0:
        raise ValueError(
            f"rollback() takes the number of tokens to remove as a negative int, got {tokens_to_remove}; "
            "to keep the first N tokens, pass N - cache.get_seq_length()"
        )
    cache.crop(tokens_to_remove)
# --8<-- [end:show]


config = PretrainedConfig(num_hidden_layers=2, layer_types=["linear_attention", "full_attention"])
cache = DynamicCache(config=config)
cache.activate_past_recording()
cache.update_conv_state(torch.randn(1, 64, 11, device=device), 0, conv_kernel_size=4)
cache.update(torch.randn(1, 2, 11, 32, device=device), torch.randn(1, 2, 11, 32, device=device), 1)
rollback(cache, -1)  # a negative count: rolled back by the library
rollback(cache, 6)
