"""The digest of the code that made a result: one procedure, for every result keyed on the bytes of files.

Two results are reused while the code that made them is unchanged: a verdict (the verifier's sources and the bundled
package, `errorkb.verify.sources`) and a page that rendered within budget (the renderer's modules,
`errorkb.site.rehearsed`). Both obey the rules here, so their trust cannot drift apart:

- a file is read only if it is a regular file (`open_regular`): a FIFO or a device named `*.py`, or a module's
  `__file__`, would block the read for ever, or never end; it is opened without waiting and refused;
- each file is read once: what is digested is what was read (`read_regular`), never a second read;
- the digest (`digest`) takes (name, bytes) pairs in a fixed order (by name), each delimited by its length: two
  different sets of files never digest alike (`a.py` holding `Xb.pyY` is not `a.py` holding `X` beside `b.py`);
- a module is keyed by the file the import system resolves its name to (`resolved`): a module newly shadowing
  it (a package beside it, one earlier on the path) is another file, so another digest.

Standard library only: the verifier's light paths and the rehearsal's child import it.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.machinery
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from io import BufferedReader
from typing import Any


class NotRegular(OSError):
    """A file to digest that is no regular file (a FIFO, a device, a folder): never read."""

    def __init__(self, path: str | os.PathLike[str], what: str):
        super().__init__(errno.EINVAL, f"{what}, not a regular file: code is read from regular files only; remove it "
                                       "or put the module's file in its place", os.fspath(path))


class Shadowed(OSError):
    """A file of code a result would be keyed on that the import system does not load: `by` is what it loads in
    its place (a package of the same name beside it, a compiled module)."""

    def __init__(self, path: str | os.PathLike[str], by: str):
        super().__init__(errno.EEXIST, f"Python imports {by} in its place (it shadows it), and a result would be "
                                       "keyed on the file it does not run: remove one of the two", os.fspath(path))


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket"))


def open_regular(path: str | os.PathLike[str]) -> BufferedReader:
    """`path` opened for reading if it is a regular file; else NotRegular (opening a FIFO does not wait for a
    writer). Links are followed, as the import system follows them."""
    handle = os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb")
    try:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, next((what for test, what in _KINDS if test(mode)), "a special file"))
    except BaseException:
        handle.close()
        raise
    return handle


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file `path`, read once (NotRegular, OSError otherwise)."""
    with open_regular(path) as handle:
        return handle.read()


def file_digest(path: str | os.PathLike[str]) -> str:
    """The sha256 of a regular file's bytes, read in pieces (memory bounded whatever its size); what else it is,
    said instead: "no regular file", "unreadable: <errno>" (a result keyed on it is then keyed on that)."""
    try:
        with open_regular(path) as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except NotRegular:
        return "no regular file"
    except OSError as error:
        return f"unreadable: {error.errno}"


def digest(files: Iterable[tuple[str, bytes]], seed: str = "") -> str:
    """The sha256 of `files` ((name, bytes) pairs), in the order of their names, each name and each file's bytes
    prefixed by its length, after `seed` (what else the result depends on)."""
    encoded = seed.encode("utf-8", "surrogatepass")
    hashed = hashlib.sha256(len(encoded).to_bytes(8, "big") + encoded)
    for name, data in sorted(files, key=lambda pair: pair[0]):
        encoded = name.encode("utf-8", "surrogatepass")
        hashed.update(len(encoded).to_bytes(8, "big") + encoded)
        hashed.update(len(data).to_bytes(8, "big"))
        hashed.update(data)
    return hashed.hexdigest()


def resolved(name: str, path: Sequence[str] | None = None,
             known: dict[str, Any] | None = None) -> str | None:
    """The file the import system would load module `name` from now, with `path` as `sys.path` (None: this
    process's), found by the finders of `sys.meta_path` without importing anything (a submodule is looked for in
    its parent's folders as found, not as imported); links resolved. None where it finds no file (a built-in, a
    namespace package, nothing). `known`: the specs found so far for this `path` (its packages' are looked for
    once for all their modules)."""
    parts = name.split(".")
    known = {} if known is None else known
    search: list[str] | None = list(path) if path is not None else None
    spec = None
    for depth in range(len(parts)):
        if depth and search is None:  # a module that is no package has no submodules
            return None
        fullname = ".".join(parts[:depth + 1])
        if fullname not in known:
            known[fullname] = found_in(fullname, search)
        spec = known[fullname]
        if spec is None:
            return None
        locations = spec.submodule_search_locations
        search = list(locations) if locations is not None else None
    origin = spec.origin if spec is not None and spec.has_location else None
    return _real(origin, known) if isinstance(origin, str) else None


def _real(file: str, known: dict[str, Any]) -> str:
    """`os.path.realpath(file)`, its folder's resolved once per `known` (a few hundred modules share a few folders:
    resolving each file's every component took most of the time)."""
    folder, name = os.path.split(file)
    key = "\0folder\0" + folder  # never a module's name
    if key not in known:
        known[key] = os.path.realpath(folder)
    joined = os.path.join(known[key], name)
    return os.path.realpath(joined) if os.path.islink(joined) else joined


def found_in(fullname: str, search: Sequence[str] | None) -> importlib.machinery.ModuleSpec | None:
    """One step of an import, run by nothing: the spec the first finder of `sys.meta_path` gives `fullname` with
    `search` as its parent's folders (None for a top-level name: `sys.path`), or None. A finder that raises finds
    nothing."""
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(fullname, None if search is None else list(search))
        except Exception:  # a third-party finder's failure: no file, so no match
            return None
        if spec is not None:
            return spec  # type: ignore[no-any-return]
    return None


__all__ = ["NotRegular", "Shadowed", "digest", "file_digest", "found_in", "open_regular", "read_regular", "resolved"]
