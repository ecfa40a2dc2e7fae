"""Whether an entry's checks can run here: optional packages present or absent, device kind.

An unmet requirement makes a check "not run" with the reason, never a failure and never a pass.
"""

from __future__ import annotations

import importlib.metadata

from packaging.requirements import Requirement

from errorkb.entry import Entry


def unmet(entry: Entry, device: str) -> str | None:
    """Why `entry` cannot be checked on `device` here, or None."""
    if device not in entry.devices:
        return f"this error only happens on {', '.join(entry.devices)}"
    for text in entry.requires:
        requirement = Requirement(text)
        installed = _version(requirement.name)
        if installed is None:
            return f"needs {text} (not installed)"
        if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
            return f"needs {text} (installed: {installed})"
    for text in entry.without:
        requirement = Requirement(text)
        installed = _version(requirement.name)
        if installed is not None and (not requirement.specifier or requirement.specifier.contains(installed)):
            return f"needs {requirement.name} to be absent (installed: {installed})"
    return None


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
