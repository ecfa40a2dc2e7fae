"""This knowledge base's own torch implementation of the transformers 5.15.1 KV-cache API (its
bundled target: `[tool.errorkb.library] bundled = "transformers_errorkb.kvcache"`).

In the verification process this package is imported *as* ``transformers``
(errorkb.verify.inside.library), so it exports what ``transformers`` exports for the cache (and
the config classes snippets build caches from), and nothing else: ``DynamicSlidingWindowLayer``
and friends live in ``.cache_utils`` only, as upstream. It imports torch and nothing of errorkb.
"""

from .cache_utils import (
    Cache,
    CacheLayerMixin,
    DynamicCache,
    DynamicIndexedLayer,
    DynamicLayer,
    EncoderDecoderCache,
    HQQQuantizedLayer,
    QuantizedCache,
    QuantoQuantizedLayer,
    StaticCache,
    StaticIndexedLayer,
    StaticLayer,
    StaticSlidingWindowLayer,
)
from .configuration_utils import PreTrainedConfig, PretrainedConfig
from .models import Gemma2Config, LlamaConfig, MistralConfig, T5Config

# The upstream release whose behaviour this package reproduces.
__version__ = "5.15.1"

__all__ = [
    "Cache",
    "CacheLayerMixin",
    "DynamicCache",
    "DynamicIndexedLayer",
    "DynamicLayer",
    "EncoderDecoderCache",
    "HQQQuantizedLayer",
    "QuantizedCache",
    "QuantoQuantizedLayer",
    "StaticCache",
    "StaticIndexedLayer",
    "StaticLayer",
    "StaticSlidingWindowLayer",
    "PreTrainedConfig",
    "PretrainedConfig",
    "LlamaConfig",
    "MistralConfig",
    "Gemma2Config",
    "T5Config",
]
