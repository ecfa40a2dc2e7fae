"""The same helper through `get_max_cache_shape()`, the name the maximum length has from 4.46 to 5.19."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def prepare_inputs_for_generation(input_ids, past_key_values=None, attention_mask=None):
    if past_key_values is not None:
        cache_length = past_key_values.get_seq_length()
        max_cache_length = past_key_values.get_max_cache_shape()  # None or -1: the cache has no maximum
        if (max_cache_length is not None and max_cache_length > 0 and attention_mask is not None
                and cache_length + input_ids.shape[1] > max_cache_length):
            attention_mask = attention_mask[:, -max_cache_length:]
        input_ids = input_ids[:, cache_length:]
    return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask}


cache = DynamicCache()
cache.update(torch.randn(1, 2, 4, 16), torch.randn(1, 2, 4, 16), 0)
inputs = prepare_inputs_for_generation(torch.tensor([[1, 2, 3, 4, 5]]), cache, torch.ones(1, 5, dtype=torch.long))
# --8<-- [end:show]
assert inputs["input_ids"].tolist() == [[5]] and inputs["attention_mask"].shape == (1, 5)
