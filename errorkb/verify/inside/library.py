"""The target inside the check's process: what `import <library>` resolves to, and where its files lie.

- `bundled`: the project's own implementation (the profile's `bundled` package). An import hook
  loads its files as `<library>` and `<library>.<sub>`, so a snippet's text, and what Python says
  about its imports, are the same on both targets.
- `upstream`: the real library installed in the interpreter that runs the check.

`module_problem` is the rule every module an entry names obeys (the loader's, the zygote's and the
child's): a module of the library's own package, whose file lies in the target. Standard library only.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from pathlib import Path

from errorkb.verify.inside.spec import LibrarySpec

# The target names as the check receives them. Reports own them (`errorkb.results.records`), which
# this side of the boundary cannot import (pydantic); `test_inside_imports` holds the two equal.
BUNDLED, UPSTREAM = "bundled", "upstream"
TARGETS = (BUNDLED, UPSTREAM)


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


def activate(target: str, library: LibrarySpec) -> None:
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


def _import_backends_without(library: LibrarySpec) -> None:
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


def package_dirs(name: str) -> list[Path]:
    """Found by the import system without importing the package (an editable install may live anywhere)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    return [Path(location) for location in (spec.submodule_search_locations or [])] if spec else []


def module_file(name: str) -> Path | None:
    """The file of `name` when it is a top-level module and no package (a library that is one module,
    `six.py`), found on the path without importing it; else None."""
    if "." in name:
        return None
    spec = importlib.machinery.PathFinder.find_spec(name)
    if spec is None or spec.submodule_search_locations is not None or not isinstance(spec.origin, str) \
            or Path(spec.origin).name != f"{name}.py":
        return None
    return Path(spec.origin)


def target_roots(target: str, library: LibrarySpec) -> list[str]:
    """Folders whose frames count as 'inside the target' when locating a raise site; of a library that
    is one module, its file (a root is a prefix of a frame's file name: the file's own name is its one frame)."""
    name = library.bundled if target == BUNDLED else library.name
    roots: list[str] = []
    for location in package_folders(name) if name else []:  # as found, and with links resolved
        for form in (str(location), str(location.resolve())):
            if form + "/" not in roots:
                roots.append(form + "/")
    module = module_file(name) if name and not roots and target == UPSTREAM else None
    if module is not None:
        roots = list(dict.fromkeys([str(module), str(module.resolve())]))
    return roots


def module_problem(module: str, library: str) -> str | None:
    """Why `module` may not be named by an entry, or None: only the library's own package (`<library>`
    or `<library>.x.y`) is imported on an entry's word; anything else would run, in the verifier's
    process, code that is not the library's (a module in the snippet folder, say)."""
    if module == library or module.startswith(library + "."):
        parts = module.split(".")
        if all(part.isidentifier() for part in parts):
            return None
        return f"'{module}' is not a module name (each part must be a Python identifier)"
    return f"'{module}' is not a module of {library}: an entry may only name the library's own modules"


def runtime_module(module: str, packages: tuple[str, ...]) -> bool:
    """Whether `module` is a module of the runtime's packages (a source with `runtime: true` names one)."""
    return all(part.isidentifier() for part in module.split(".")) \
        and any(module == package or module.startswith(package + ".") for package in packages)


def runtime_roots(packages: tuple[str, ...]) -> list[str]:
    """The folders of the runtime's packages, as found and with links resolved, each ending in '/'."""
    roots: list[str] = []
    for name in packages:
        for location in package_dirs(name):
            for form in (str(location), str(location.resolve())):
                if form + "/" not in roots:
                    roots.append(form + "/")
    return roots


def module_outside_target(module: str, roots: list[str]) -> str | None:
    """After importing `module`: why its file does not lie in the target's folders, or None."""
    loaded = sys.modules.get(module)
    path = getattr(loaded, "__file__", None) if loaded is not None else None
    if not isinstance(path, str) or not any(path.startswith(root) for root in roots):
        return f"{module} was loaded from {path or 'no file'}, outside the target ({', '.join(roots) or 'none'})"
    return None
