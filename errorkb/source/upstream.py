"""Where the source of an upstream release lies on this machine, found without importing it.

The pinned release is normally the one installed beside errorkb (transformers 5.15.1); other
releases live in the version matrix's environments (`errorkb matrix` creates them).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path

from errorkb.core.project import Project


def package_name(library: str) -> str:
    """`huggingface/transformers` → `transformers`."""
    return library.split("/")[-1]


def matrix_env(project: Project, package: str, release: str) -> Path:
    return project.root / ".errorkb-cache" / "matrix" / f"{package}-{release}"


def source_file(project: Project, package: str, release: str, path: str) -> Path | None:
    """The file `path` (as in the upstream repository) of `package==release`, if present here."""
    inside = path.removeprefix("src/").removeprefix(f"{package}/")
    try:
        installed = importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed == release:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            candidate = Path(next(iter(spec.submodule_search_locations))) / inside
            if candidate.is_file():
                return candidate
    env = matrix_env(project, package, release)
    return next(iter(sorted(env.glob(f"lib/python*/site-packages/{package}/{inside}"))), None)


def missing_release_hint(package: str, release: str) -> str:
    return (f"{package}=={release} is not installed here; install it (pip install {package}=={release}) "
            f"or build its matrix environment (errorkb matrix --release {release})")
