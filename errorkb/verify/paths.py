"""Where another environment's interpreter finds packages, seen from the harness."""

from __future__ import annotations

import sysconfig
from pathlib import Path


def environment_path(python: Path) -> list[str]:
    """Where a matrix environment's interpreter finds packages: its own site-packages, then this
    environment's (which it sees through a .pth file)."""
    folder = python.parent.parent
    return [str(site) for site in sorted(folder.glob("lib/python*/site-packages"))] + [sysconfig.get_paths()["purelib"]]
