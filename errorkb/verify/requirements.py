"""Whether an entry's checks can run here: optional packages present or absent, device kind.

An unmet requirement makes a check "not run" with the reason, never a failure and never a pass.
"""

from __future__ import annotations

import importlib.metadata

from packaging.requirements import Requirement

from errorkb.core.entry import Entry


def unmet(entry: Entry, role: str, device: str) -> str | None:
    """Why the `role` snippet of `entry` cannot be checked on `device` here, or None."""
    if device not in entry.devices:
        return f"this error only happens on {', '.join(entry.devices)}"
    requires, without, build = entry.needs(role)
    if build is not None and torch_build() != build:
        return f"needs a {build} build of torch (this one is a {torch_build()} build)"
    for text in requires:
        requirement = Requirement(text)
        installed = _version(requirement.name)
        if installed is None:
            return f"needs {text} (not installed)"
        if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
            return f"needs {text} (installed: {installed})"
    for text in without:
        requirement = Requirement(text)
        installed = _version(requirement.name)
        if installed is not None and (not requirement.specifier or requirement.specifier.contains(installed)):
            return f"needs {requirement.name} to be absent (installed: {installed})"
    return None


def torch_build() -> str:
    """'cuda' or 'cpu', read from torch/version.py without importing torch."""
    import importlib.util
    import re
    from pathlib import Path

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return "absent"
    version = Path(next(iter(spec.submodule_search_locations))) / "version.py"
    try:
        found = re.search(r"^cuda(?::[^=]*)?=\s*(.+)$", version.read_text(encoding="utf-8"), re.MULTILINE)
    except OSError:
        return "unknown"
    return "cpu" if found is None or found.group(1).strip() == "None" else "cuda"


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None
