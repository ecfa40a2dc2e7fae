"""Refuse the known-broken pair at start-up, with the fix in the message, before any model is loaded."""

import importlib.metadata

import transformers
from packaging.version import Version

# --8<-- [start:show]
quanto = Version(importlib.metadata.version("optimum-quanto"))
if Version(transformers.__version__).release[:2] == (4, 46) and quanto >= Version("0.2.5"):
    raise RuntimeError(
        f"transformers {transformers.__version__}'s quanto KV cache cannot quantize with optimum-quanto {quanto} "
        f"(it passes no scale or shift); run: pip install -U \"transformers>=4.47\""
    )
# --8<-- [end:show]
