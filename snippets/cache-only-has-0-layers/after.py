"""Ask the cache how long it is; index a layer only once it holds tensors."""

import torch
from transformers import DynamicCache

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def prepare_inputs_for_generation(input_ids, past_key_values=None):
    if past_key_values is not None:
        past_length = past_key_values.get_seq_length()  # 0 for the empty cache of the first step
        input_ids = input_ids[:, past_length:]
    return {"input_ids": input_ids, "past_key_values": past_key_values}


cache = DynamicCache()
first = prepare_inputs_for_generation(torch.tensor([[1, 2, 3, 4]], device=device), cache)
for layer_idx in range(2):  # what the model's attention layers do during the first forward
    cache.update(torch.randn(1, 2, 4, 16, device=device), torch.randn(1, 2, 4, 16, device=device), layer_idx)
second = prepare_inputs_for_generation(torch.tensor([[1, 2, 3, 4, 5]], device=device), cache)

# Code that needs the tensors themselves may index a layer once it holds some (4.36-4.57 only):
keys, values = cache[0]
# --8<-- [end:show]
assert first["input_ids"].shape == (1, 4) and second["input_ids"].shape == (1, 1)
assert keys.shape == (1, 2, 4, 16)
