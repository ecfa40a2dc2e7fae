"""Check that the chosen backend can be imported before building the cache."""

import importlib.util

from transformers import LlamaConfig, QuantizedCache

BACKEND_PACKAGES = {"quanto": ("optimum.quanto", "optimum-quanto>=0.2.6"), "hqq": ("hqq", "hqq>=0.2.1")}


# --8<-- [start:show]
def quantized_cache(backend, config, **kwargs):
    module, requirement = BACKEND_PACKAGES[backend]
    if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
        raise ImportError(
            f"QuantizedCache(backend={backend!r}) needs the {requirement!r} package, which is not "
            f"installed in this environment: pip install {requirement!r}"
        )
    return QuantizedCache(backend=backend, config=config, **kwargs)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = quantized_cache("quanto", config, nbits=4)
