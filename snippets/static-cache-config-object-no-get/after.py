"""Since 4.54 the cache configuration of a generation config is a plain dict."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

device = "cuda" if torch.cuda.is_available() else "cpu"

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).to(device).eval()

# --8<-- [start:show]
model.generation_config.cache_implementation = "static"
model.generation_config.cache_config = {"batch_size": 1, "max_cache_len": 64}
exportable_module = TorchExportableModuleForDecoderOnlyLM(model, max_batch_size=1, max_cache_len=64)
# --8<-- [end:show]
