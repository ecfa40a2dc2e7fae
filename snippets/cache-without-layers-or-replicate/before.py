"""A custom cache that counts stored tokens, calling the base constructor with no arguments."""

from transformers import Cache


# --8<-- [start:show]
class CountingCache(Cache):
    """Counts how many tokens layer 0 has stored, e.g. for logging."""

    def __init__(self):
        super().__init__()  # neither `layers` nor `layer_class_to_replicate`
        self.tokens_stored = 0

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        if layer_idx == 0:
            self.tokens_stored += key_states.shape[-2]
        return super().update(key_states, value_states, layer_idx, *args, **kwargs)


cache = CountingCache()
# --8<-- [end:show]
