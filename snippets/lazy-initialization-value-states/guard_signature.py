"""Call the parent's lazy_initialization with as many tensors as its signature takes (4.56-4.57: 1, 5.x: 2)."""

import inspect

import torch
from transformers.cache_utils import DynamicLayer

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
class CompressedLayer(DynamicLayer):
    def update(self, key_states, value_states, cache_kwargs=None):
        if not self.is_initialized:
            takes_values = "value_states" in inspect.signature(super().lazy_initialization).parameters
            self.lazy_initialization(key_states, value_states) if takes_values else self.lazy_initialization(key_states)
        self.keys = torch.cat([self.keys, key_states.half().float()], dim=-2)
        self.values = torch.cat([self.values, value_states.half().float()], dim=-2)
        return self.keys, self.values
# --8<-- [end:show]


layer = CompressedLayer()
layer.update(torch.randn(1, 2, 3, 16, device=device), torch.randn(1, 2, 3, 16, device=device))
