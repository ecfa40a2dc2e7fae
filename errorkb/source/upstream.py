"""Where the source of an upstream release lies on this machine, found without importing it.

The pinned release is normally the one installed beside errorkb (transformers 5.15.1); other
releases live in the version matrix's environments (`errorkb matrix` creates them).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path, PurePosixPath

from errorkb.core.project import Project


def package_name(library: str) -> str:
    """`huggingface/transformers` → `transformers`."""
    return library.split("/")[-1]


def matrix_env(project: Project, package: str, release: str) -> Path:
    return project.root / ".errorkb-cache" / "matrix" / f"{package}-{release}"


def source_file(project: Project, package: str, release: str, path: str) -> Path | None:
    """The file `path` (as in the upstream repository) of `package==release`, if present here.

    Only a regular file inside that release's package folder is ever returned: `path` comes
    from an entry (a stranger's pull request), and a page shows what this file holds, so an
    absolute path, `..`, a glob pattern or a symlink leading out must find nothing.
    """
    inside = path.removeprefix("src/").removeprefix(f"{package}/")
    try:
        installed = importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed == release:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            found = _inside_package(Path(next(iter(spec.submodule_search_locations))), inside)
            if found is not None:
                return found
    env = matrix_env(project, package, release)
    for folder in sorted(env.glob(f"lib/python*/site-packages/{package}")):
        found = _inside_package(folder, inside)
        if found is not None:
            return found
    return None


def _inside_package(package_dir: Path, inside: str) -> Path | None:
    """`package_dir / inside` when it is a regular file that resolves inside `package_dir`."""
    relative = PurePosixPath(inside)
    if relative.is_absolute() or not relative.parts or any(part in ("", ".", "..") for part in relative.parts):
        return None
    candidate = package_dir / relative
    try:
        if candidate.resolve().is_relative_to(package_dir.resolve()) and candidate.is_file():
            return candidate
    except OSError:
        return None
    return None


def missing_release_hint(package: str, release: str) -> str:
    return (f"{package}=={release} is not installed here; install it (pip install {package}=={release}) "
            f"or build its matrix environment (errorkb matrix --release {release})")
