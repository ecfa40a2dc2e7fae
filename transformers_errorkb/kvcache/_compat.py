"""Small helpers the cache needs from upstream's ``utils``: logging-once, kwarg renames, probes.

They live apart so that ``cache_utils`` reads as the cache and nothing else.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import inspect
import logging
import re
import warnings

import torch

logger = logging.getLogger("transformers_errorkb.kvcache.cache_utils")

_already_warned: set[str] = set()


def warning_once(message: str) -> None:
    """Upstream deduplicates some deprecation notices per process; so do we."""
    if message not in _already_warned:
        _already_warned.add(message)
        logger.warning(message)


def is_torchdynamo_compiling() -> bool:
    return torch.compiler.is_compiling()


def torch_at_least(major: int, minor: int) -> bool:
    """Compare the release part only, so a dev build of 2.7 counts as 2.7 (upstream's accept_dev)."""
    found = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return found is not None and (int(found[1]), int(found[2])) >= (major, minor)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3])


# Import name -> distributions, read once when the cache is imported, as upstream reads its
# `PACKAGE_DISTRIBUTION_MAPPING` when transformers is: it walks every installed distribution's file list
# (a quarter of a second here, seconds under a tracer), so no later question pays for it again.
_DISTRIBUTIONS = importlib.metadata.packages_distributions()


@functools.cache
def _installed_version(module: str) -> str | None:
    """Version of an importable package as upstream finds it, or None when it cannot be imported.
    Asked once per process, as upstream's `lru_cache`d `is_hqq_available` and friends are: a package
    installed after the first question is not seen until the process restarts, there as here.

    Like upstream: the distribution metadata of the import name when there is one, else the
    module's own ``__version__``. A dotted name (``optimum.quanto``) never has distribution
    metadata of its own, so its ``__version__`` is what counts.
    """
    top = module.split(".")[0]
    if importlib.util.find_spec(top) is None:
        return None
    if module != top and importlib.util.find_spec(module) is None:
        return None
    distributions = _DISTRIBUTIONS.get(module, [])
    if distributions:
        wanted = module.replace("_", "-")
        name = wanted if wanted in distributions else module if module in distributions else distributions[0]
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    return getattr(importlib.import_module(module), "__version__", "N/A")


def is_optimum_quanto_available() -> bool:
    return importlib.util.find_spec("optimum") is not None and _installed_version("optimum.quanto") is not None


def is_quanto_greater(minimum: str) -> bool:
    """Strictly greater, on the release part, exactly as upstream compares it."""
    found = _installed_version("optimum.quanto")
    return found is not None and _release(found) > _release(minimum)


def is_hqq_available(minimum: str = "0.2.1") -> bool:
    found = _installed_version("hqq")
    return found is not None and _release(found) >= _release(minimum)


def deprecate_kwarg(old_name: str, version: str, new_name: str):
    """Accept ``old_name=`` for ``new_name=`` with a FutureWarning, as upstream's decorator does.

    The wrapped function keeps its own code object, so an exception raised inside still comes
    from a frame whose ``co_qualname`` is the method's (``DynamicLayer.crop``), as upstream.
    """

    def wrapper(func):
        takes_self = "self" in inspect.signature(func).parameters

        @functools.wraps(func)
        def wrapped_func(*args, **kwargs):
            if old_name in kwargs:  # the common call pays for nothing else
                name = f"{type(args[0]).__name__}.{func.__name__}" if takes_self and args else func.__name__
                if new_name in kwargs:
                    message = (
                        f"Both `{old_name}` and `{new_name}` are set for `{name}`. Using `{new_name}={kwargs[new_name]}` "
                        f"and ignoring deprecated `{old_name}={kwargs[old_name]}`."
                    )
                    kwargs.pop(old_name)
                else:
                    message = f"`{old_name}` is deprecated and will be removed in version {version} for `{name}`. Use `{new_name}` instead."
                    kwargs[new_name] = kwargs.pop(old_name)
                if not is_torchdynamo_compiling():
                    warnings.warn(message, FutureWarning, stacklevel=2)
            return func(*args, **kwargs)

        return wrapped_func

    return wrapper
