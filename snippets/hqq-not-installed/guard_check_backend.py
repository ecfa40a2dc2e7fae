"""Check that hqq is installed, and recent enough, before building the cache."""

from importlib.metadata import PackageNotFoundError, version

from packaging.version import Version
from transformers import LlamaConfig, QuantizedCache


# --8<-- [start:show]
def hqq_cache(config, **kwargs):
    try:
        installed = version("hqq")
    except PackageNotFoundError:
        installed = None
    if installed is None or Version(installed) < Version("0.2.1"):
        found = "not installed" if installed is None else f"version {installed}"
        raise ImportError(f'QuantizedCache(backend="hqq") needs hqq>=0.2.1 ({found}): pip install -U "hqq>=0.2.1"')
    return QuantizedCache(backend="hqq", config=config, **kwargs)
# --8<-- [end:show]


config = LlamaConfig(num_hidden_layers=2, hidden_size=512, num_attention_heads=8, num_key_value_heads=8)
cache = hqq_cache(config, nbits=4, axis_key=1, axis_value=1)
