"""Vendored generation utilities (IndexTTS2, KVTuner) written for 4.44-4.55."""

# --8<-- [start:show]
from transformers.cache_utils import QuantizedCacheConfig  # gone since transformers 4.56

cache_config = QuantizedCacheConfig(backend="quanto", nbits=4, residual_length=128)
# --8<-- [end:show]
