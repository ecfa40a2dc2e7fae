"""Track the position yourself, and use the cache's count only where it has one."""

import torch
from transformers import CacheLayerMixin, DynamicCache, PreTrainedConfig

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class Positions:
    """Counts fed tokens; cross-checks with the cache when it has attention layers."""

    def __init__(self, cache):
        self.cache, self.seen = cache, 0
        self.can_check = any(isinstance(layer, CacheLayerMixin) for layer in cache.layers)

    def advance(self, num_tokens):
        self.seen += num_tokens
        if self.can_check:
            assert self.cache.get_seq_length() == self.seen
        return self.seen
# --8<-- [end:show]


def prefill(layer_types, num_tokens=5):
    cache = DynamicCache(config=PreTrainedConfig(num_hidden_layers=len(layer_types), layer_types=layer_types))
    for idx, kind in enumerate(layer_types):
        if kind == "full_attention":
            cache.update(torch.randn(1, 8, num_tokens, 64, device=device),
                         torch.randn(1, 8, num_tokens, 64, device=device), idx)
        else:
            cache.update_recurrent_state(torch.randn(1, 4, 16, 16, device=device), idx)
    return Positions(cache).advance(num_tokens)


assert prefill(["linear_attention", "linear_attention"]) == 5  # no attention layer: counted only
assert prefill(["linear_attention", "full_attention"]) == 5  # checked against get_seq_length()
