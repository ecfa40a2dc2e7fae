"""A quantized-cache add-on (KVTuner style) written for 4.42-4.55 that subclasses the library's CacheConfig."""

# --8<-- [start:show]
from transformers.cache_utils import CacheConfig  # gone since transformers 4.56


class MixedPrecisionCacheConfig(CacheConfig):
    """Separate bit widths for keys and values."""

    cache_implementation = "quantized"

    def __init__(self, key_bits=4, value_bits=2, residual_length=128):
        self.key_bits, self.value_bits, self.residual_length = key_bits, value_bits, residual_length


cache_config = MixedPrecisionCacheConfig.from_dict({"key_bits": 4, "value_bits": 2})
# --8<-- [end:show]
