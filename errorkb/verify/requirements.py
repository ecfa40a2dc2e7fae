"""Whether an entry's checks can run here: optional packages present or absent, device kind,
runtime build.

An unmet requirement makes a check "not run" with the reason, never a failure and never a pass.
"""

from __future__ import annotations

import importlib.metadata
from typing import TYPE_CHECKING

from errorkb.core.entry import Entry
from errorkb.core.snippets import Role
from errorkb.plugs import Runtime

if TYPE_CHECKING:
    from packaging.requirements import Requirement


def unmet(entry: Entry, role: Role, device: str, runtime: Runtime, path: list[str] | None = None) -> str | None:
    """Why the `role` snippet of `entry` cannot be checked on `device` here, or None; `path`: the
    import path of another environment to look the packages up in (a release's, from outside it)."""
    devices = entry.devices or list(runtime.devices)
    if device not in devices:
        return f"this error only happens on {', '.join(devices)}"
    requires, without, build = entry.needs(role)
    if build is not None and runtime.build() != build:
        return f"needs a {build} build of {runtime.name} (this one is a {runtime.build()} build)"
    for text in requires:
        requirement = _parsed(text)
        installed = _version(requirement.name, path)
        if installed is None:
            return f"needs {text} (not installed)"
        if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
            return f"needs {text} (installed: {installed})"
    for text in without:
        requirement = _parsed(text)
        installed = _version(requirement.name, path)
        if installed is not None and (not requirement.specifier or requirement.specifier.contains(installed)):
            return f"needs {requirement.name} to be absent (installed: {installed})"
    return None


def _parsed(text: str) -> Requirement:
    """`text` as a requirement; packaging's parser is imported by the entries that declare needs only
    (a cached run answers the others without it)."""
    from packaging.requirements import Requirement

    return Requirement(text)


def _version(distribution: str, path: list[str] | None = None) -> str | None:
    if path is not None:
        found = next(iter(importlib.metadata.distributions(name=distribution, path=path)), None)
        return found.version if found is not None else None
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
