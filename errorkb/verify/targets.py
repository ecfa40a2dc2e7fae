"""Targets seen from the harness: whether one can run here, what it has, and its fingerprint.

`bundled` (the project's own implementation) and `upstream` (the real library): what `import
<library>` resolves to inside a check is `inside/library.py`'s. Fingerprints (what a cached verdict
depends on) are computed without importing the library.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

from errorkb.core.project import LibraryProfile
from errorkb.results.records import BUNDLED, TARGETS, UPSTREAM  # the names reports carry, defined there
from errorkb.verify.inside.library import package_folders
from errorkb.verify.sources import Keyed, keyed_digest, read_keyed

__all__ = ["BUNDLED", "TARGETS", "UPSTREAM", "availability", "bundled_has", "fingerprint", "installed_version"]


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


def fingerprint(target: str, library: LibraryProfile, read: tuple[Keyed, ...] | None = None) -> str:
    """Changes whenever the code a snippet would run against changes. Of the bundled package, the digest of `read`
    (the run's one read of it, `sources.read_keyed`, which its sandbox shows: the same bytes); read now without it."""
    if target == UPSTREAM:
        return f"{library.dist}=={installed_version(library) or 'absent'}"
    # The very files a check is shown of the bundled package (`keyed_files`, their one owner), nothing else.
    if read is None:
        read = read_keyed([library.bundled]) if library.bundled else ()
    found = next((files for name, _, files in read if name == library.bundled), ())
    return "bundled-" + keyed_digest(found)[:16]
