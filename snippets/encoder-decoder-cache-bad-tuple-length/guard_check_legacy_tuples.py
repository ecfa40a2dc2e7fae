"""Check legacy per-layer tuples before converting them, naming the layer that is wrong."""

import torch
from transformers import EncoderDecoderCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def from_legacy(per_layer):
    for layer_idx, tensors in enumerate(per_layer):
        if not isinstance(tensors, (tuple, list)) or len(tensors) not in (4, 6):
            raise ValueError(
                f"layer {layer_idx}: expected (self_k, self_v, cross_k, cross_v), optionally with a "
                f"sliding-window tensor after each pair (6 items), got {type(tensors).__name__} "
                f"of {len(tensors)} items"
            )
    return EncoderDecoderCache(per_layer)
# --8<-- [end:show]


# Key/value pairs of a decoder-only model: 2 tensors per layer, and no cross-attention states.
key = torch.randn(1, 4, 3, 16, device=device)
legacy = ((key, key), (key, key))
from_legacy(((key, key, key, key), (key, key, key, key)))  # self and cross pairs per layer: built by the library
from_legacy(legacy)
