"""`errorkb render --out DIR`: replace only what an earlier render wrote there, never the author's own files.

A render writes the site's files at fixed paths (`tags.md`, `errors/index.md`, ...): pointed at a folder
that holds files of the author's (`--out docs`), it overwrote them, and a generated page edited by hand
was overwritten at the next render, both without a word. So a render leaves a record of what it wrote
(`RECORD`: each path and its bytes' SHA-256), and a file already at a path it writes may be replaced
only when that record lists it with the bytes it holds now, or when it holds the very bytes this render
writes (nothing would change). A hand-written site page (`names.site_page`: `tags.md`, the lists) is kept
and none generated in its place, as the plugin keeps docs/tags.md; any other file there stops the render
before it writes anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

from errorkb.results import store

RECORD = ".errorkb-render.json"  # what the last render wrote: {"files": {path: sha256}}


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _file_digest(path: Path) -> str | None:
    """The SHA-256 of the regular file at `path` (read in chunks, never through a link nor from a FIFO);
    None when nothing is there; `OSError` for anything but a regular file."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(mode):
        raise OSError(f"not a regular file{' (a link)' if stat.S_ISLNK(mode) else ''}")
    digest = hashlib.sha256()
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW), "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError("not a regular file")
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _recorded(out: Path) -> tuple[dict[str, str], str]:
    """The record of the last render (path → SHA-256), and why it could not be read ("" when it could or is absent)."""
    try:
        text = store.read_regular(out / RECORD)
        data = store.parse_json(text) if text is not None else {}
    except (store.Unreadable, ValueError) as error:
        return {}, f"{out / RECORD} could not be read ({error}), so no file there counts as errorkb's"
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return {}, "" if not data else f"{out / RECORD} is not a record of a render"
    return {str(path): str(digest) for path, digest in files.items()}, ""


def foreign(out: Path, contents: dict[str, str]) -> dict[str, str]:
    """The files at paths this render writes (relative path → text) that it may not replace: relative
    path → the file and why (not written by errorkb render, changed since it wrote them, not a regular file)."""
    recorded, unreadable = _recorded(out)
    found = {}
    for relative, text in contents.items():
        path = out / relative
        try:
            present = _file_digest(path)
        except OSError as error:
            found[relative] = f"{path} ({error.strerror or error})"
            continue
        if present is None or present == _digest(text.encode("utf-8")):
            continue
        if relative not in recorded:
            found[relative] = f"{path} (not written by errorkb render{f'; {unreadable}' if unreadable else ''})"
        elif recorded[relative] != present:
            found[relative] = f"{path} (changed since errorkb render wrote it)"
    return found


def record(out: Path, contents: dict[str, str]) -> None:
    """Note what this render wrote, beside what earlier renders wrote that is still there unchanged."""
    recorded, _ = _recorded(out)
    kept = {}
    for relative, digest in recorded.items():
        try:
            if relative not in contents and _file_digest(out / relative) == digest:
                kept[relative] = digest
        except OSError:
            continue
    kept.update({relative: _digest(text.encode("utf-8")) for relative, text in contents.items()})
    with store.locked(out):
        store.replace(out / RECORD, json.dumps({"files": dict(sorted(kept.items()))}, indent=1) + "\n")


__all__ = ["RECORD", "foreign", "record"]
