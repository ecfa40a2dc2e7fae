"""Export a causal LM with the cache kept out of the forward's output, whatever the caller asked for."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM


# --8<-- [start:show]
def export_without_cache(model, args, kwargs=None):
    """torch.export.export of the model's forward with use_cache=False: its output then holds tensors only."""
    kwargs = dict(kwargs or {}, use_cache=False)
    return torch.export.export(model, args, kwargs)
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 2, 3, 4]])
program = export_without_cache(model, (input_ids,), {"use_cache": True})
