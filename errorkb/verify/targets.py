"""Targets: the implementation a snippet's `import transformers` resolves to.

- `bundled`: errorkb's own cache (`errorkb.kvcache`), always available. An import hook maps
  `transformers` and `transformers.<sub>` onto it, so a snippet's text is the same on both.
- `upstream`: the real `transformers` installed in this environment.

Fingerprints (what a cached verdict depends on) are computed without importing torch.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
from pathlib import Path

TARGETS = ("bundled", "upstream")
BUNDLED_PACKAGE = "errorkb.kvcache"
_BUNDLED_ROOT = Path(__file__).resolve().parent.parent / "kvcache"


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `transformers[.x]` as the already-imported `errorkb.kvcache[.x]` module object."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "transformers" and not fullname.startswith("transformers."):
            return None
        real = BUNDLED_PACKAGE + fullname.removeprefix("transformers")
        if importlib.util.find_spec(real) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname == "transformers")

    def create_module(self, spec):
        return importlib.import_module(BUNDLED_PACKAGE + spec.name.removeprefix("transformers"))

    def exec_module(self, module):
        """The real module is already executed; nothing to do."""


# Optional backends that import transformers' model classes when `transformers` is importable.
# Under the alias that would be errorkb.kvcache, which has only the cache API; so they are
# imported first with transformers hidden, as on a machine without it. Their quantizers, which
# the cache uses, do not depend on transformers.
_BACKENDS_WITHOUT_TRANSFORMERS = ("optimum.quanto",)


def activate(target: str) -> None:
    """Make `import transformers` resolve to `target` in this process."""
    if target == "bundled":
        for name in [n for n in sys.modules if n == "transformers" or n.startswith("transformers.")]:
            del sys.modules[name]
        _import_backends_without_transformers()
        sys.meta_path.insert(0, _AliasFinder())
    elif target == "upstream":
        if importlib.util.find_spec("transformers") is None:
            raise ModuleNotFoundError("the real transformers package is not installed")
    else:
        raise ValueError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")


def _import_backends_without_transformers() -> None:
    for backend in _BACKENDS_WITHOUT_TRANSFORMERS:
        parent = backend.split(".")[0]
        if importlib.util.find_spec(parent) is None or importlib.util.find_spec(backend) is None:
            continue
        sys.modules["transformers"] = None  # find_spec("transformers") is None while this is set
        try:
            importlib.import_module(backend)
        finally:
            del sys.modules["transformers"]


def target_roots(target: str) -> list[str]:
    """Folders whose frames count as 'inside the target' when locating a raise site."""
    if target == "bundled":
        return [str(_BUNDLED_ROOT) + "/"]
    spec = importlib.util.find_spec("transformers")
    if spec is None or not spec.submodule_search_locations:
        return []
    roots: list[str] = []
    for location in spec.submodule_search_locations:  # as imported, and with links resolved
        for form in (str(Path(location)), str(Path(location).resolve())):
            if form + "/" not in roots:
                roots.append(form + "/")
    return roots


def availability(target: str) -> str | None:
    """None when the target can run here, else why not."""
    if target == "upstream":
        try:
            importlib.metadata.version("transformers")
        except importlib.metadata.PackageNotFoundError:
            return "transformers is not installed (pip install transformers==5.15.1)"
    elif target != "bundled":
        return f"unknown target {target!r}"
    return None


def fingerprint(target: str) -> str:
    """Changes whenever the code a snippet would run against changes."""
    if target == "upstream":
        try:
            return "transformers==" + importlib.metadata.version("transformers")
        except importlib.metadata.PackageNotFoundError:
            return "transformers-absent"
    digest = hashlib.sha256()
    for path in sorted(_BUNDLED_ROOT.rglob("*.py")):
        digest.update(path.relative_to(_BUNDLED_ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return "bundled-" + digest.hexdigest()[:16]
