"""Fail at import time with the fix in the message, instead of Python's bare ImportError."""

# --8<-- [start:show]
import transformers
from packaging.version import Version

transformers.DynamicCache()  # what this release has still works: built by the library
if Version(transformers.__version__) < Version("4.38"):
    raise RuntimeError(
        f"this model's code needs transformers>=4.38 for StaticCache (installed: {transformers.__version__}); "
        "run: pip install -U transformers"
    )
from transformers.cache_utils import Cache, DynamicCache, StaticCache
# --8<-- [end:show]

cache = DynamicCache()
