"""Read the flag where it exists; elsewhere decide from the config, as QuantizedCache itself does (4.56+)."""

import torch
from transformers import LlamaConfig, LlamaForCausalLM, QuantizedCache

torch.manual_seed(0)
config = LlamaConfig(num_hidden_layers=2, hidden_size=64, intermediate_size=128, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=128)
model = LlamaForCausalLM(config).eval()


# --8<-- [start:show]
def supports_quantized_cache(model):
    supported = getattr(model, "_supports_quantized_cache", None)  # 4.42-4.53
    if supported is not None:
        return bool(supported)
    layer_types = getattr(model.config, "layer_types", None) or ["full_attention"]
    return set(layer_types) == {"full_attention"} and getattr(model.config, "sliding_window", None) is None


if supports_quantized_cache(model):
    cache = QuantizedCache(backend="quanto", config=model.config, nbits=4)  # the 4.56+ constructor
# --8<-- [end:show]
