"""Fail at import time with the fix in the message, instead of Python's bare ImportError."""

# --8<-- [start:show]
import transformers
from packaging.version import Version

transformers.DynamicCache()  # what this release has still works: built by the library
if Version(transformers.__version__) < Version("4.43"):
    raise RuntimeError(
        f"this package needs transformers>=4.43 for EncoderDecoderCache (installed: {transformers.__version__}); "
        "run: pip install -U transformers, or install a release of this package made for your transformers"
    )
from transformers import Cache, DynamicCache, EncoderDecoderCache
# --8<-- [end:show]

cache = DynamicCache()
