"""`errorkb hook install | uninstall | status`: the `.pth` file in an environment's site-packages.

Its one line is `errorkb.hook.PTH_LINE`. A file of that name that errorkb did not write is never
overwritten or removed.
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

from errorkb.hook import PTH_LINE

NAME = "errorkb-hook.pth"  # sorts after `__editable__.*.pth`, which makes an editable errorkb importable


def site_packages() -> Path:
    """The running interpreter's site-packages (purelib): the current environment's."""
    return Path(sysconfig.get_paths()["purelib"])


def pth_path(folder: Path | None = None) -> Path:
    return (folder or site_packages()) / NAME


def _text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def is_ours(path: Path) -> bool:
    """Written by errorkb: this release's line, or an older release's (it names the hook)."""
    text = _text(path)
    return text is not None and text.startswith("import sys; exec(") and \
        ("_errorkb_excepthook" in text or "_errorkb_hook" in text)


def install(folder: Path | None = None) -> tuple[bool, str]:
    """(done, what happened), for the CLI to print."""
    path = pth_path(folder)
    if path.exists() and not is_ours(path):
        return False, f"{path} exists and was not written by errorkb; left as it is"
    if _text(path) == PTH_LINE:
        return True, f"already installed: {path}"
    path.write_text(PTH_LINE, encoding="utf-8")
    return True, f"installed: {path} (uncaught documented errors now print their entry after the traceback)"


def uninstall(folder: Path | None = None) -> tuple[bool, str]:
    path = pth_path(folder)
    if not path.exists():
        return True, f"not installed: no {path}"
    if not is_ours(path):
        return False, f"{path} was not written by errorkb; left as it is"
    path.unlink()
    return True, f"removed: {path}"


def status(folder: Path | None = None) -> tuple[bool, str]:
    path = pth_path(folder)
    if _text(path) == PTH_LINE:
        return True, f"installed: {path}"
    if is_ours(path):
        return False, f"{path} is an older errorkb's hook; errorkb hook install updates it"
    if path.exists():
        return False, f"{path} exists but was not written by errorkb"
    return False, f"not installed in {path.parent} (errorkb hook install)"
