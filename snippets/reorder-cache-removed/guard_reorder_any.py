"""Reorder legacy tuples yourself and Cache objects through their own method: no model helper needed."""

import torch
from transformers import Cache, DynamicCache


# --8<-- [start:show]
def reorder(past_key_values, beam_idx):
    """What model._reorder_cache did, for a Cache (any release) or a legacy tuple."""
    if isinstance(past_key_values, Cache):
        past_key_values.reorder_cache(beam_idx)  # in place
        return past_key_values
    return tuple(tuple(t.index_select(0, beam_idx.to(t.device)) for t in layer) for layer in past_key_values)
# --8<-- [end:show]


cache = DynamicCache()
for layer_idx in range(2):
    cache.update(torch.randn(2, 2, 4, 16), torch.randn(2, 2, 4, 16), layer_idx)
cache = reorder(cache, torch.tensor([1, 1]))
legacy = reorder(tuple((torch.randn(2, 2, 4, 16), torch.randn(2, 2, 4, 16)) for _ in range(2)), torch.tensor([1, 1]))
assert torch.equal(legacy[0][0][0], legacy[0][0][1])
