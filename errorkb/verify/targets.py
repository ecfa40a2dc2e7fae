"""Targets: the implementation a snippet's `import <library>` resolves to.

- `bundled`: the project's own implementation (the profile's `bundled` package), always
  available. An import hook loads its files as `<library>` and `<library>.<sub>`, so a snippet's
  text, and what Python says about its imports, are the same on both targets.
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

from errorkb.core.project import LibraryProfile
from errorkb.results.records import BUNDLED as BUNDLED  # the names reports carry, defined there
from errorkb.results.records import TARGETS as TARGETS
from errorkb.results.records import UPSTREAM as UPSTREAM


class _BundledFinder(importlib.abc.MetaPathFinder):
    """Imports the bundled package's files *as* `<library>[.x]`: module names, class `__module__`s
    and the interpreter's own messages (`cannot import name 'X' from '<library>'`) read as they do
    with the real library, while the code that runs is the bundled implementation's."""

    def __init__(self, library: str, folder: Path):
        self.library, self.folder = library, folder

    def find_spec(self, fullname: str, path: object = None,
                  target: object = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.library and not fullname.startswith(self.library + "."):
            return None
        inside = self.folder.joinpath(*fullname.split(".")[1:])
        if (inside / "__init__.py").is_file():
            return importlib.util.spec_from_file_location(fullname, inside / "__init__.py",
                                                          submodule_search_locations=[str(inside)])
        if inside.with_suffix(".py").is_file():
            return importlib.util.spec_from_file_location(fullname, inside.with_suffix(".py"))
        return None


def activate(target: str, library: LibraryProfile) -> None:
    """Make `import <library>` resolve to `target` in this process."""
    if target == BUNDLED:
        if library.bundled is None:
            raise ModuleNotFoundError("the profile names no bundled implementation ([tool.errorkb.library] bundled)")
        folders = package_folders(library.bundled)
        if not folders:
            raise ModuleNotFoundError(f"the bundled package {library.bundled} is not installed")
        for name in [n for n in sys.modules if n == library.name or n.startswith(library.name + ".")]:
            del sys.modules[name]
        _import_backends_without(library)
        sys.meta_path.insert(0, _BundledFinder(library.name, folders[0]))
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


def bundled_has(dotted: str, library: LibraryProfile) -> bool:
    """Whether the bundled implementation has `dotted` (`<library>.x.y` or `<library>.x.Name`) at
    all. It reproduces part of the library (the cache API), so an entry about another of its
    modules (the models', generation's) or a name only the real package exports (a model class)
    cannot apply to it. Read from the bundled files, without importing them."""
    folders = package_folders(library.bundled) if library.bundled else []
    parts = dotted.split(".")
    if not folders or parts[0] != library.name:
        return True  # nothing to decide here: availability says whether the target runs at all
    here = folders[0]
    for index, part in enumerate(parts[1:], 1):
        if (here / part / "__init__.py").is_file():
            here = here / part
        elif (here / f"{part}.py").is_file():
            return index == len(parts) - 1 or parts[index + 1] in _top_level_names(here / f"{part}.py")
        else:
            return part in _top_level_names(here / "__init__.py")
    return True


def _top_level_names(path: Path) -> set[str]:
    """Names a module binds at its top level: classes, functions, assignments and imports."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return set()
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(target.id for target in targets if isinstance(target, ast.Name))
    return names


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
