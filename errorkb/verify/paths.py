"""Where another environment's interpreter finds packages, seen from the harness."""

from __future__ import annotations

import ast
import os
import re
import sysconfig
from pathlib import Path

# In a layered environment's site-packages (a release's, the version matrix's; one that meets a snippet's
# pins, `requirements.build_pinned_env`): the .pth file that adds the site-packages below it.
BASE_PTH = "_errorkb_base.pth"


def environment_path(python: Path) -> list[str]:
    """Where another environment's interpreter finds packages: its own site-packages, then those of each
    environment it is layered on (`BASE_PTH`, followed down: an environment of pins on a release's, on this
    one), then this environment's."""
    base = sysconfig.get_paths()["purelib"]
    found: list[str] = []
    folder: Path | None = python.parent.parent
    while folder is not None and len(found) < 16:
        sites = [str(site) for site in sorted(folder.glob("lib/python*/site-packages"))]
        found += [site for site in sites if site not in found]
        below = _below(Path(sites[0]) / BASE_PTH) if sites else None
        folder = Path(below).parents[2] if below and os.path.realpath(below) != os.path.realpath(base) \
            and below not in found else None
    return [*found, base]


def _below(pth: Path) -> str | None:
    """The folder a `BASE_PTH` file adds: a line that names it, or `import site; site.addsitedir('...')`."""
    try:
        text = pth.read_text(encoding="utf-8").strip()
    except OSError:
        return None
    call = re.search(r"addsitedir\((.*)\)", text)
    try:
        return str(ast.literal_eval(call.group(1))) if call else text.splitlines()[0] if text else None
    except (ValueError, SyntaxError):
        return None
