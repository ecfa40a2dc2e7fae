"""Turn an optional list of pre-built layers into exactly one constructor argument."""

import torch
from transformers import Cache, DynamicLayer

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def make_cache(layers=None, grow_with=DynamicLayer):
    """Fixed layers when the caller has them, otherwise a cache that grows `grow_with` layers."""
    if layers:
        return Cache(layers=list(layers))
    return Cache(layer_class_to_replicate=grow_with)


def prebuilt_layers(num_layers):
    return [DynamicLayer() for _ in range(num_layers)] if num_layers else None


fixed = make_cache(prebuilt_layers(2))
growing = make_cache(prebuilt_layers(0))  # no layers known yet: no crash, a growing cache
# --8<-- [end:show]

for cache in (fixed, growing):
    for layer_idx in range(2):
        cache.update(torch.zeros(1, 8, 5, 64, device=device), torch.zeros(1, 8, 5, 64, device=device), layer_idx)
    assert len(cache) == 2
