"""Pass both tensors, as 5.x expects."""

import torch
from transformers.cache_utils import DynamicLayer

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class CompressedLayer(DynamicLayer):
    def update(self, key_states, value_states, cache_kwargs=None):
        if not self.is_initialized:
            self.lazy_initialization(key_states, value_states)
        self.keys = torch.cat([self.keys, key_states.half().float()], dim=-2)
        self.values = torch.cat([self.values, value_states.half().float()], dim=-2)
        return self.keys, self.values


layer = CompressedLayer()
layer.update(torch.randn(1, 2, 3, 16, device=device), torch.randn(1, 2, 3, 16, device=device))
# --8<-- [end:show]
assert layer.keys.shape == (1, 2, 3, 16)
