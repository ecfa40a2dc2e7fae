"""Where the source of an upstream release lies on this machine, found without importing it.

The pinned release is normally the one installed beside errorkb; other releases live in the
version matrix's environments (`errorkb matrix` creates them). Only files inside the library's
own package folder are ever returned: a path that leaves it (`..`, an absolute path, a link
pointing out) is no source of this library.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
from pathlib import Path, PurePosixPath

from errorkb.core.cachetrust import refused
from errorkb.core.project import LibraryProfile, Project


def matrix_env(project: Project, release: str) -> Path:
    """The version matrix's environment of one release of the library."""
    return project.cache_dir / "matrix" / f"{project.library.dist}-{release}"


def package_folder(project: Project, release: str) -> Path | None:
    """The top import package's folder of `release` (`google/` of `google.protobuf`, as `package_path` and a
    matrix environment take it): installed here, or in its matrix environment where errorkb built
    it (a repository's committed environment is a stranger's text, never quoted as the release's source). Of a
    library that is one module (`six.py`), the folder that holds it: `package_path` names the module's file."""
    library = project.library
    try:
        installed = importlib.metadata.version(library.dist)
    except importlib.metadata.PackageNotFoundError:
        installed = None
    if installed == release:
        spec = importlib.util.find_spec(library.name)
        if spec is not None and spec.submodule_search_locations:
            # the top package's folder, as a matrix environment's (`google` of `google.protobuf`: a namespace
            # package may span several folders; the library's own is the one that holds its package)
            own = Path(next(iter(spec.submodule_search_locations)))
            return own.parents[library.name.count(".") - 1] if "." in library.name else own
        if spec is not None and "." not in library.name and isinstance(spec.origin, str) \
                and Path(spec.origin).name == f"{library.name}.py":
            return Path(spec.origin).parent
    env = matrix_env(project, release)
    if refused(project.cache_dir, env) is not None:
        return None
    top = library.name.split(".")[0]
    found = next(iter(sorted(env.glob(f"lib/python*/site-packages/{top}"))), None)
    if found is None and "." not in library.name:
        module = next(iter(sorted(env.glob(f"lib/python*/site-packages/{top}.py"))), None)
        found = module.parent if module is not None else None
    return found


def _inside_package(package_dir: Path, inside: str) -> Path | None:
    """`package_dir / inside` when it is a regular file that resolves inside `package_dir`.

    `inside` comes from an entry (a stranger's pull request), and a page shows what this file
    holds: an absolute path, `..`, a glob pattern or a symlink leading out must find nothing."""
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


def source_file(project: Project, release: str, path: str) -> Path | None:
    """The file `path` (as in the upstream repository) of `release`, if present here: only ever a
    regular file inside that release's package folder."""
    inside = project.library.package_path(path)
    folder = package_folder(project, release)
    if inside is None or folder is None:
        return None
    return _inside_package(folder, inside)


def runtime_version(project: Project) -> str | None:
    """The installed runtime's public release (2.13.0 of 2.13.0+cpu), read without importing it; None when absent."""
    from errorkb.plugs import runtime_for

    version = runtime_for(project.library.runtime).version()
    return None if version == "absent" else version.split("+")[0]


def runtime_source_file(project: Project, release: str, path: str) -> Path | None:
    """The runtime's file `path` (as in the runtime's repository: `<package>/sub/file.py`), when the installed
    runtime is `release` (a source with `runtime: true` is pinned to it): only ever a regular file inside
    one of the runtime's package folders."""
    from errorkb.plugs import runtime_for

    parts = PurePosixPath(path).parts
    if runtime_version(project) != release or len(parts) < 2 \
            or parts[0] not in runtime_for(project.library.runtime).packages:
        return None
    try:
        spec = importlib.util.find_spec(parts[0])
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return _inside_package(Path(next(iter(spec.submodule_search_locations))), str(PurePosixPath(*parts[1:])))


def pinned_file(project: Project, release: str, path: str, runtime: bool = False) -> Path | None:
    """The file a source pins: the library's (`source_file`), or the runtime's for `source.runtime`."""
    return runtime_source_file(project, release, path) if runtime else source_file(project, release, path)


def read_source(path: Path) -> str | None:
    """The text of a source file, or None when it is not readable UTF-8 text."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def missing_release_hint(library: LibraryProfile, release: str) -> str:
    """What to do when a release's source is not here: build its environment (never install an old
    release into the user's own environment)."""
    return (f"{library.dist} {release} is neither installed here nor built: run "
            f"`errorkb matrix --environments-only --release {release}`")
