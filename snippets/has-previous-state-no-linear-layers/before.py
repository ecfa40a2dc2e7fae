"""A Mamba-style hybrid block asks the cache whether this is a decoding step; layer_types was forgotten."""

from transformers import DynamicCache, PreTrainedConfig

# --8<-- [start:show]
# The model alternates convolution and attention blocks, but the config does not say so,
# so the cache is built with attention layers only.
config = PreTrainedConfig(num_hidden_layers=4)
cache = DynamicCache(config=config)

# First thing a stateful block does in its forward: prefill or single-token decoding?
decoding = cache.has_previous_state()
# --8<-- [end:show]
