"""Check the installed optimum-quanto version against what transformers really accepts."""

from importlib.metadata import version

from packaging.version import Version
from transformers import LlamaConfig, QuantizedCache


# --8<-- [start:show]
def quanto_cache(config, **kwargs):
    installed = Version(version("optimum-quanto"))
    # transformers compares the release part and wants it strictly above 0.2.5.
    if Version(installed.base_version) <= Version("0.2.5"):
        raise ImportError(
            f"optimum-quanto {installed} is installed, but the quantized KV cache needs 0.2.6 or newer: "
            'pip install -U "optimum-quanto>=0.2.6"'
        )
    return QuantizedCache(backend="quanto", config=config, **kwargs)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = quanto_cache(config, nbits=4)
