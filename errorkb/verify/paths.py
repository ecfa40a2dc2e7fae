"""Where an importable package's files are: one definition for the sandbox (which mounts them, and
runs in interpreters that have nothing but the standard library) and the observer (which trusts
errors that start in them). Standard library only."""

from __future__ import annotations

import importlib.util
import sysconfig
from pathlib import Path


def package_dirs(name: str) -> list[Path]:
    """Found by the import system without importing the package (an editable install may live anywhere)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    return [Path(location) for location in (spec.submodule_search_locations or [])] if spec else []


def environment_path(python: Path) -> list[str]:
    """Where a matrix environment's interpreter finds packages: its own site-packages, then this
    environment's (which it sees through a .pth file)."""
    folder = python.parent.parent
    return [str(site) for site in sorted(folder.glob("lib/python*/site-packages"))] + [sysconfig.get_paths()["purelib"]]
