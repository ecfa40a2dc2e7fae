"""Shared helpers for the kvcache tests: the two implementations side by side, and outcome capture."""

from __future__ import annotations

import importlib
import os
import warnings
from dataclasses import dataclass
from typing import Any

import pytest
import torch

import transformers_errorkb.kvcache as bundled_top
import transformers_errorkb.kvcache.cache_utils as bundled_cache_utils


@dataclass(frozen=True)
class Impl:
    """One implementation: its top-level package and its `cache_utils` module."""

    name: str
    top: Any
    cache_utils: Any


BUNDLED = Impl("bundled", bundled_top, bundled_cache_utils)


def upstream() -> Impl:
    """The real transformers, or a clean skip when it is not installed."""
    top = pytest.importorskip("transformers", exc_type=ImportError)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cache_utils = importlib.import_module("transformers.cache_utils")
    return Impl("upstream", top, cache_utils)


@dataclass
class Raised:
    """An exception reduced to what the knowledge base compares: class name and message."""

    type_name: str
    message: str

    def __repr__(self):
        return f"{self.type_name}({self.message!r})"


def outcome(fn, *args, **kwargs):
    """Return ``fn(...)``'s result, or a `Raised` describing its exception."""
    try:
        return fn(*args, **kwargs)
    except Exception as err:  # every exception is an observable outcome here
        return Raised(type(err).__name__, str(err))


def normalize(value):
    """Turn results into comparable plain data (tensors keep dtype, device, shape and values)."""
    if isinstance(value, torch.Tensor):
        return ("tensor", str(value.dtype), value.device.type, tuple(value.shape), value.detach().cpu().tolist())
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [normalize(v) for v in value]
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, Raised):
        return ("raised", value.type_name, value.message)
    return value


def raising_qualname(fn, *args, **kwargs) -> str:
    """The ``co_qualname`` of the innermost Python frame of the exception ``fn`` raises."""
    try:
        fn(*args, **kwargs)
    except Exception as err:  # every exception is an observable outcome here
        tb = err.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        return tb.tb_frame.f_code.co_qualname
    raise AssertionError("did not raise")


# Set by conftest.pytest_configure before test modules are imported.
SLOW = False


def property_examples() -> int:
    """Generated operation sequences per property test: bounded in CI, >= 2000 when slow."""
    if "KVCACHE_EXAMPLES" in os.environ:
        return int(os.environ["KVCACHE_EXAMPLES"])
    return 2500 if SLOW else 300
