"""Remote-code `prepare_inputs_for_generation` written for tuple caches, handed the empty cache of the first step."""

import torch
from transformers import DynamicCache


# --8<-- [start:show]
def prepare_inputs_for_generation(input_ids, past_key_values=None):
    if past_key_values is not None:
        past_length = past_key_values[0][0].shape[2]  # tuple era: layer 0, keys, sequence axis
        input_ids = input_ids[:, past_length:]
    return {"input_ids": input_ids, "past_key_values": past_key_values}


# generate() hands the model an empty DynamicCache before the first forward
inputs = prepare_inputs_for_generation(torch.tensor([[1, 2, 3, 4]]), DynamicCache())
# --8<-- [end:show]
