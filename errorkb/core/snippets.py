"""Snippet files: their roles, their bytes, the hash of those bytes, and the part a page shows.

One definition for everyone: the verifier hashes and runs exactly the bytes read here, the
site shows and hashes the same bytes, the verdict cache and the version matrix key on the
same hash. (Hashing newline-normalised text in one place and raw bytes in another once made a
snippet saved with Windows line endings look "stale" right after it was verified.)

A page shows the lines between `# --8<-- [start:show]` and `# --8<-- [end:show]` (the
pymdownx.snippets section syntax), or the whole file; section markers never show.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

SHOW_START = re.compile(r"^\s*# --8<-- \[start:show\]\s*$")
SHOW_END = re.compile(r"^\s*# --8<-- \[end:show\]\s*$")
MARKER = re.compile(r"^\s*# --8<-- \[(start|end):[a-z][-_0-9a-z]*\]\s*$", re.IGNORECASE)
_KINDS = ("before", "after", "guard")
MAX_BYTES = 64 * 1024  # one snippet file (the real snippets' largest: 2.6 KB); a page shows it whole
# Files Python imports as code without reading a source: bytecode (a `__pycache__` file compiled with an
# unchecked hash runs in place of the source beside it) and extension modules, for any platform. A
# snippet folder holds none: the lint, the reviewer and the page all read sources.
COMPILED_SUFFIXES = (".pyc", ".pyo", ".so", ".pyd", ".dylib")
# One entry's snippet folder, bounded: the loader walks it on every `errorkb check` and `mkdocs serve` rebuild,
# and the verdict key hashes every file of it. This repository's folders hold 5 names at most, none nested;
# a pull request's 10^5 files cost every build seconds (3.3 s of `errorkb check` at 10^5, growing with them) and
# a tree 1,500 deep passed what a path can name, where the walk skipped it without a word.
MAX_FOLDER_NAMES = 1_000  # files and folders, at any depth
MAX_FOLDER_DEPTH = 8  # folders below the entry's folder


class Role(str):
    """`before`, `after` or `guard:<file stem>`: which part of an entry a snippet plays.

    A string (reports and URLs carry it as text) that can only hold a well-formed role.
    """

    __slots__ = ()

    def __new__(cls, text: str) -> Role:
        kind, _, stem = str(text).partition(":")
        if kind not in _KINDS or (kind == "guard") != bool(stem) or any(c in stem for c in ":/\\\n"):
            raise ValueError(f"not a snippet role: {text!r} (before, after or guard:<file stem>)")
        return super().__new__(cls, text)

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """In a pydantic model: validated from a string, serialised as one."""
        from pydantic_core import core_schema

        return core_schema.no_info_after_validator_function(
            cls, core_schema.str_schema(), serialization=core_schema.to_string_ser_schema())

    @classmethod
    def guard(cls, file: str) -> Role:
        return cls(f"guard:{file.removesuffix('.py')}")

    @property
    def kind(self) -> str:
        return self.partition(":")[0]

    @property
    def stem(self) -> str | None:
        return self.partition(":")[2] or None


BEFORE, AFTER = Role("before"), Role("after")


def bounded_names(folder: str | os.PathLike[str]) -> tuple[list[tuple[str, str]], str | None]:
    """(path, name) of every file and folder under `folder` (links not followed), and None while the folder is
    inside `MAX_FOLDER_NAMES` and `MAX_FOLDER_DEPTH`; past either, what it is past (a phrase), the walk stopped
    there (bounded time: never the whole tree)."""
    found: list[tuple[str, str]] = []
    top = os.fspath(folder)
    for current, folders, files in walk(top):
        found += [(os.path.join(current, name), name) for name in [*folders, *files]]
        if len(found) > MAX_FOLDER_NAMES:
            return found, f"more than {MAX_FOLDER_NAMES:,} files and folders"
        depth = 0 if current == top else os.path.relpath(current, top).count(os.sep) + 1
        if folders and depth >= MAX_FOLDER_DEPTH:
            return found, f"folders nested more than {MAX_FOLDER_DEPTH} deep"
    return found, None


def sha256(data: bytes) -> str:
    """The snippet hash: of the file's bytes, exactly as stored and as executed."""
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class Snippet:
    role: Role
    file: str  # the file name, as the entry gives it
    path: Path  # where it lies
    data: bytes  # read once; the verifier runs these bytes

    @cached_property
    def sha256(self) -> str:
        return sha256(self.data)

    @cached_property
    def text(self) -> str:
        """Decoded, with line endings normalised for display (the hash stays on the bytes)."""
        return self.data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")

    @cached_property
    def full(self) -> str:
        """The whole file without section markers."""
        return strip_markers(self.text)

    @cached_property
    def shown(self) -> str:
        """The `show` section (dedented), or the whole file without markers."""
        return shown_section(self.text)


def read_snippet(path: Path, role: Role, file: str) -> Snippet:
    """The snippet at `path`; OSError when it cannot be read (callers say what to do), as
    `read_bounded` says."""
    data = read_bounded(path)
    if len(data) > MAX_BYTES:
        raise OSError(errno.EFBIG, f"more than {MAX_BYTES:,} bytes, the limit of a snippet", str(path))
    return Snippet(role, file, path, data)


def read_bounded(path: Path) -> bytes:
    """At most `MAX_BYTES` + 1 bytes of the file at `path` (one more than the limit: a file over it
    is never read whole); OSError when it is not a regular file, which is never opened (a FIFO
    would block the build, or a check, forever)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(errno.EINVAL, "not a regular file; a snippet must be a plain Python file", str(path))
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # swapped for a FIFO since the stat: still no block
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file; a snippet must be a plain Python file", str(path))
        return handle.read(MAX_BYTES + 1)


def shown_section(text: str) -> str:
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if SHOW_START.match(line)), None)
    end = next((i for i, line in enumerate(lines) if SHOW_END.match(line)), None)
    if start is None or end is None or end <= start:
        return strip_markers(text)
    return textwrap.dedent("\n".join(lines[start + 1: end])).strip("\n") + "\n"


def strip_markers(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not MARKER.match(line)).strip("\n") + "\n"


def walk(top: str | os.PathLike[str]) -> Iterator[tuple[str, list[str], list[str]]]:
    """`os.walk(top)` (top-down, links to folders listed but never entered, unreadable folders
    skipped) without recursion: Python 3.11's os.walk, like Path.rglob, recurses once per level,
    and a pull request can nest folders 1,000 deep in a few kilobytes of path (RecursionError).
    As with os.walk, a caller may prune the `folders` list it is given to skip them."""
    stack = [os.fspath(top)]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as listing:
                entries = list(listing)
        except OSError:
            continue
        folders: list[str] = []
        files: list[str] = []
        for one in entries:
            try:
                is_folder = one.is_dir()
            except OSError:
                is_folder = False
            (folders if is_folder else files).append(one.name)
        yield current, folders, files
        stack += [os.path.join(current, name) for name in reversed(folders)
                  if not os.path.islink(os.path.join(current, name))]
