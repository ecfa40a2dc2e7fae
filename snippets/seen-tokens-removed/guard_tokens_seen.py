"""A version-tolerant `seen_tokens`: the old attribute where it exists, the cache's length elsewhere."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def tokens_seen(cache):
    """Tokens the cache has processed: `seen_tokens` on 4.36-4.53, `get_seq_length()` from 4.54 on."""
    seen = getattr(cache, "seen_tokens", None)  # None where the attribute is gone
    return seen if seen is not None else cache.get_seq_length()
# --8<-- [end:show]


cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
assert tokens_seen(cache) == 4
