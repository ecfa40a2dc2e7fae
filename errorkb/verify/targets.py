"""Targets: the implementation a snippet's `import <library>` resolves to.

- `bundled`: the project's own implementation (the profile's `bundled` package), always
  available. An import hook maps `<library>` and `<library>.<sub>` onto it, so a snippet's text
  is the same on both targets.
- `upstream`: the real library installed in the interpreter that runs the check.

Fingerprints (what a cached verdict depends on) are computed without importing the library.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.metadata
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from errorkb.core.project import LibraryProfile

BUNDLED, UPSTREAM = "bundled", "upstream"
TARGETS = (BUNDLED, UPSTREAM)


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `<library>[.x]` as the already-imported `<bundled>[.x]` module object."""

    def __init__(self, library: str, bundled: str):
        self.library, self.bundled = library, bundled

    def _real(self, fullname: str) -> str | None:
        if fullname != self.library and not fullname.startswith(self.library + "."):
            return None
        return self.bundled + fullname.removeprefix(self.library)

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        real = self._real(fullname)
        if real is None or importlib.util.find_spec(real) is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=fullname == self.library)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self._real(spec.name) or spec.name)

    def exec_module(self, module: ModuleType) -> None:
        """The real module is already executed; nothing to do."""


def activate(target: str, library: LibraryProfile) -> None:
    """Make `import <library>` resolve to `target` in this process."""
    if target == BUNDLED:
        if library.bundled is None:
            raise ModuleNotFoundError("the profile names no bundled implementation ([tool.errorkb.library] bundled)")
        for name in [n for n in sys.modules if n == library.name or n.startswith(library.name + ".")]:
            del sys.modules[name]
        _import_backends_without(library)
        sys.meta_path.insert(0, _AliasFinder(library.name, library.bundled))
    elif target == UPSTREAM:
        if importlib.util.find_spec(library.name) is None:
            raise ModuleNotFoundError(f"the real {library.name} package is not installed")
    else:
        raise ValueError(f"unknown target {target!r}; known: {', '.join(TARGETS)}")


def _import_backends_without(library: LibraryProfile) -> None:
    """Optional backends that import the library's other parts when it is importable: under the
    alias those would be the bundled package, which has only the documented API; so they are
    imported first with the library hidden, as on a machine without it."""
    for backend in library.backends:
        parent = backend.split(".")[0]
        if importlib.util.find_spec(parent) is None or importlib.util.find_spec(backend) is None:
            continue
        sys.modules[library.name] = None  # type: ignore[assignment]  # find_spec(name) is None while set
        try:
            importlib.import_module(backend)
        finally:
            del sys.modules[library.name]


def package_folders(name: str) -> list[Path]:
    """Where the package `name` lies, found on the path (never from `sys.modules`, where the
    alias gives the bundled package object a spec under the library's name)."""
    parent, _, last = name.rpartition(".")
    try:
        search = importlib.import_module(parent).__path__ if parent else None
    except (ImportError, AttributeError):
        return []
    spec = importlib.machinery.PathFinder.find_spec(last if parent else name, search)
    return [Path(location) for location in (spec.submodule_search_locations or [])] if spec else []


def target_roots(target: str, library: LibraryProfile) -> list[str]:
    """Folders whose frames count as 'inside the target' when locating a raise site."""
    name = library.bundled if target == BUNDLED else library.name
    roots: list[str] = []
    for location in package_folders(name) if name else []:  # as found, and with links resolved
        for form in (str(location), str(location.resolve())):
            if form + "/" not in roots:
                roots.append(form + "/")
    return roots


def availability(target: str, library: LibraryProfile) -> str | None:
    """None when the target can run here, else why not."""
    if target == UPSTREAM:
        if installed_version(library) is None:
            return f"{library.dist} is not installed (pip install {library.dist}=={library.release})"
    elif target == BUNDLED:
        if library.bundled is None or importlib.util.find_spec(library.bundled) is None:
            return f"no bundled implementation of {library.name} ([tool.errorkb.library] bundled)"
    else:
        return f"unknown target {target!r}"
    return None


def installed_version(library: LibraryProfile) -> str | None:
    try:
        return importlib.metadata.version(library.dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def fingerprint(target: str, library: LibraryProfile) -> str:
    """Changes whenever the code a snippet would run against changes."""
    if target == UPSTREAM:
        return f"{library.dist}=={installed_version(library) or 'absent'}"
    digest = hashlib.sha256()
    folders = package_folders(library.bundled) if library.bundled else []
    for root in folders[:1]:
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return "bundled-" + digest.hexdigest()[:16]
