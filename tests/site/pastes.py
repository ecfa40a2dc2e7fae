"""Real pastes: what terminals and tools wrap around an error (issue 11, item 4), generated from a
few tracebacks. tests/site/test_lookup_js.py runs the Python and the JavaScript lookup on every
one of them and compares the answers; tests/site/test_lookup.py asserts what they must find."""

from __future__ import annotations

from tests.site.sitekb import MESSAGE, TRACEBACK

ENTRIES = [
    {"id": "head-dim-list-length", "title": "`head_dim` list does not have one value per layer", "exception": "ValueError",
     "message": "`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
                "{len(self.layers)} layers", "url": "errors/transformers/head-dim-list-length/"},
    {"id": "get-max-length", "title": "`get_max_length` was removed", "exception": "AttributeError",
     "message": "'DynamicCache' object has no attribute 'get_max_length'",
     "wordings": [{"message": "'DynamicCache' object has no attribute 'get_max_length'", "exception": None},
                  {"message": "'{cls}' object has no attribute 'get_max_length'", "exception": None,
                   "releases": ">=4.49", "note": "subclasses and remote-code caches"}],
     "raises_in": ">=4.49", "last_good": "4.48.3", "replacement": "`get_max_cache_shape()`",
     "replacement_since": "4.45.0",
     "lines": {"path": "transformers/generation/utils.py",
               "by_release": {"4.48.3": 1590, "4.49.0": 1602, "4.50.0": 1602, "4.51.0": 1650}}},
    {"id": "hybrid-cache", "title": "HybridCache removed", "exception": "ImportError",
     "message": "cannot import name 'HybridCache' from 'transformers'", "raises_in": ">=5.0",
     "replacement": "`StaticCache`", "replacement_since": "4.56.0"},
    {"id": "device-assert", "title": "device-side assert", "exception": "torch.AcceleratorError",
     "message": "CUDA error: device-side assert triggered"},
    {"id": "generic", "title": "claims everything", "exception": "AttributeError",
     "message": "'{cls}' object has no attribute '{name}'"},
]

CHAIN = """Traceback (most recent call last):
  File "a.py", line 3, in <module>
    from transformers import HybridCache
ImportError: cannot import name 'HybridCache' from 'transformers'

{marker}

Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/transformers/generation/utils.py", line 1602, in generate
    cache.get_max_length()
AttributeError: 'DynamicCache' object has no attribute 'get_max_length'. Did you mean: 'get_seq_length'?
"""
BASES = [
    MESSAGE, f"ValueError: {MESSAGE}", TRACEBACK,
    CHAIN.format(marker="During handling of the above exception, another exception occurred:"),
    CHAIN.format(marker="The above exception was the direct cause of the following exception:"),
    "torch.AcceleratorError: CUDA error: device-side assert triggered",
    "builtins.AttributeError: 'MyCache' object has no attribute 'get_max_length'",
    "AttributeError: 'list' object has no attribute 'get_seq_length'",
    "NameError: name 'x' is not defined. Did you mean: 'y'? Or did you forget to import 'x'?",
]
PREFIXES = ["", "[rank0]: ", "[rank1]:", "E   ", "E       ", "2025-01-01 12:00:00,123 - ERROR - ",
            "2025-01-01 12:00:00,123 - __main__ - ERROR - ", "trainer-1  | ", "web | [2025-01-01 12:00:00] ERROR: "]


def _prefixed(prefix: str, text: str) -> str:
    return "\n".join(prefix + line for line in text.split("\n"))


def _coloured(text: str) -> str:
    return (text.replace("Traceback", "\x1b[1;31mTraceback\x1b[0m").replace("Error: ", "Error\x1b[0m: \x1b[35m")
            .replace("ValueError", "\x1b[1;35mValueError"))


PASTES = [_prefixed(prefix, base) for base in BASES for prefix in PREFIXES]
PASTES += [f(base) for base in BASES for f in (
    _coloured, lambda t: t.replace("\n", "\r\n"), lambda t: t.replace("\n", "\r"), lambda t: "\ufeff" + t,
    lambda t: t.replace(" ", "\u00a0", 3), lambda t: t.replace("\n", "\u2028"))]
PASTES += ["", "   ", "\ufeff", "garbage", "\x1b[31m", "E   ", "[rank0]: ", "x" * 100 + "\n" + MESSAGE,
           "unicode → ünïcödé 🚀 " + MESSAGE, MESSAGE + " 🚀" * 3]
