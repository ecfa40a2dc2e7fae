"""Give the generation config the form of cache configuration the installed release reads."""

import torch
import transformers
from packaging.version import Version
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

device = "cuda" if torch.cuda.is_available() else "cpu"


# --8<-- [start:show]
def static_cache_config(batch_size, max_cache_len):
    """A StaticCacheConfig up to 4.53 (read by attribute), a plain dict from 4.54 on (read with .get)."""
    if Version(transformers.__version__) < Version("4.54"):
        from transformers.cache_utils import StaticCacheConfig

        return StaticCacheConfig(batch_size=batch_size, max_cache_len=max_cache_len)
    return {"batch_size": batch_size, "max_cache_len": max_cache_len}
# --8<-- [end:show]


torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128, max_position_embeddings=64)
model = LlamaForCausalLM(config).to(device).eval()
model.generation_config.cache_implementation = "static"
model.generation_config.cache_config = static_cache_config(batch_size=1, max_cache_len=64)
exportable_module = TorchExportableModuleForDecoderOnlyLM(model, max_batch_size=1, max_cache_len=64)
