"""Keep the 'cut back to a length' API older code expects, and translate it for crop()."""

import torch
from transformers import DynamicCache, PretrainedConfig

config = PretrainedConfig(num_hidden_layers=2, layer_types=["linear_attention", "full_attention"])
device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def truncate_to(cache, length):
    """Keep the first `length` tokens of `cache`; a no-op when it holds no more than that."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)
# --8<-- [end:show]


cache = DynamicCache(config=config)
cache.activate_past_recording()
cache.update_conv_state(torch.randn(1, 64, 12, device=device), 0, conv_kernel_size=4)
cache.update(torch.randn(1, 2, 12, 32, device=device), torch.randn(1, 2, 12, 32, device=device), 1)
truncate_to(cache, 9)
truncate_to(cache, 20)  # longer than the cache: nothing to do
assert cache.get_seq_length() == 9
assert cache.layers[0].conv_states[0].shape[-1] == 4
