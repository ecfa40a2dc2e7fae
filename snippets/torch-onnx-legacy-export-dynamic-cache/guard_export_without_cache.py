"""Legacy ONNX export of a causal LM with the cache turned off for the export, whatever its config said."""

import io

import torch
from transformers import LlamaConfig, LlamaForCausalLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def onnx_export_without_cache(model, input_ids, f):
    """torch.onnx.export (TorchScript) with use_cache off: the traced forward then returns tensors only."""
    saved = model.config.use_cache
    model.config.use_cache = False
    try:
        torch.onnx.export(model, (input_ids, torch.ones_like(input_ids)), f, dynamo=False)
    finally:
        model.config.use_cache = saved
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).to(device).eval()
assert model.config.use_cache
buffer = io.BytesIO()
onnx_export_without_cache(model, torch.tensor([[1, 2, 3, 4]], device=device), buffer)
assert buffer.getvalue() and model.config.use_cache
