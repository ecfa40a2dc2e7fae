"""The number of tokens already in the cache comes from `get_seq_length()`, present since 4.36; the tuple
branch serves callers that still pass the legacy format."""

import torch
from transformers import Cache, DynamicCache


# --8<-- [start:show]
def prepare_inputs_for_generation(input_ids, past_key_values=None):
    if past_key_values is not None:
        if isinstance(past_key_values, Cache):
            past_length = past_key_values.get_seq_length()
        else:
            past_length = past_key_values[0][0].shape[2]
        input_ids = input_ids[:, past_length:]
    return {"input_ids": input_ids, "past_key_values": past_key_values}


cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
inputs = prepare_inputs_for_generation(torch.tensor([[1, 2, 3, 4, 5]]), cache)
# --8<-- [end:show]
assert inputs["input_ids"].tolist() == [[5]]
