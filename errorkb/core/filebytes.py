"""The digest of the code that made a result: one procedure, for every result keyed on the bytes of files.

Two results are reused while the code that made them is unchanged: a verdict (the verifier's sources and the bundled
package, `errorkb.verify.sources`) and a page that rendered within budget (the renderer's modules,
`errorkb.site.rehearsed`). Both obey the rules here, so their trust cannot drift apart:

- a file is read only if it is a regular file (`open_regular`): a FIFO or a device named `*.py`, or a module's
  `__file__`, would block the read for ever, or never end; it is opened without waiting and refused;
- every other file the tool reads from a knowledge base (pyproject.toml, mkdocs.yml, entries, reports) is read by
  `read_bounded` under the same rule, with a limit and, where it must lie inside a folder, a link out refused:
  one reader, so that no file is taken for absent because it is a FIFO, nor blocks a command, and `said` puts what
  was wrong with it in the same words everywhere;
- each file is read once: what is digested is what was read (`read_regular`), never a second read;
- the digest (`digest`) takes (name, bytes) pairs in a fixed order (by name), each delimited by its length: two
  different sets of files never digest alike (`a.py` holding `Xb.pyY` is not `a.py` holding `X` beside `b.py`);
- a module is keyed by the file the import system resolves its name to (`resolved`): a module newly shadowing
  it (a package beside it, one earlier on the path) is another file, so another digest.

Standard library only: the verifier's light paths and the rehearsal's child import it.
"""

from __future__ import annotations

import errno
import importlib.machinery
import os
import stat
import sys
from collections.abc import Iterable, Sequence
from io import BufferedReader
from typing import Any

SETTINGS_BYTES = 1 << 20  # a project's settings file (pyproject.toml, mkdocs.yml) holds a few kilobytes

_CODE = "code is read from regular files only; remove it or put the module's file in its place"
_PLAIN = "remove it, or put the file itself in its place"


class NotRegular(OSError):
    """A file to read that is no regular file (a FIFO, a device, a folder, a socket): never read."""

    def __init__(self, path: str | os.PathLike[str], what: str, advice: str = _CODE):
        super().__init__(errno.EINVAL, f"{what}, not a regular file: {advice}", os.fspath(path))
        self.what = what


class LeadsOut(OSError):
    """A link to a file outside the folder it must lie in: never read (its text would reach pages and messages)."""

    def __init__(self, path: str | os.PathLike[str], real: str):
        super().__init__(errno.EXDEV, f"a link to {real}, outside the repository: errorkb reads the repository's own "
                                      "files only; put the file itself here", os.fspath(path))


class TooLarge(OSError):
    """A file past the limit of what it may hold: never read whole."""

    def __init__(self, path: str | os.PathLike[str], size: int, limit: int):
        super().__init__(errno.EFBIG, f"{size:,} bytes, more than the {limit:,} such a file holds", os.fspath(path))
        self.size, self.limit = size, limit


class Shadowed(OSError):
    """A file of code a result would be keyed on that the import system does not load: `by` is what it loads in
    its place (a package of the same name beside it, a compiled module)."""

    def __init__(self, path: str | os.PathLike[str], by: str):
        super().__init__(errno.EEXIST, f"Python imports {by} in its place (it shadows it), and a result would be "
                                       "keyed on the file it does not run: remove one of the two", os.fspath(path))


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket"))


def open_regular(path: str | os.PathLike[str], advice: str = _CODE) -> BufferedReader:
    """`path` opened for reading if it is a regular file; else NotRegular (opening a FIFO does not wait for a
    writer; a socket, which cannot be opened, is told by its stat). Links are followed, as the import system
    follows them."""
    try:
        handle = os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb")
    except OSError as error:
        if error.errno in (errno.ENXIO, errno.EOPNOTSUPP):  # a socket (or a FIFO's twin): say what it is
            try:
                mode = os.stat(path).st_mode
            except OSError:
                raise error from None
            if not stat.S_ISREG(mode):
                raise NotRegular(path, _kind(mode), advice) from None
        raise
    try:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, _kind(mode), advice)
    except BaseException:
        handle.close()
        raise
    return handle


def _kind(mode: int) -> str:
    return next((what for test, what in _KINDS if test(mode)), "a special file")


def read_bounded(path: str | os.PathLike[str], limit: int, inside: str | os.PathLike[str] | None = None) -> bytes:
    """The bytes of the regular file `path`, read once, at most `limit` (a file past it is never read whole:
    TooLarge, also for one that grew past it while it was read); links followed, but where `inside` is given,
    one that resolves outside that folder is refused (LeadsOut) and never opened. NotRegular for a FIFO, a socket,
    a device or a folder (never blocks); FileNotFoundError for nothing there (a dangling link, a file that
    vanished since it was listed); OSError otherwise. `said` words any of them for a message."""
    if inside is not None:
        real = os.path.realpath(path)
        if not (real + os.sep).startswith(os.path.realpath(inside).rstrip(os.sep) + os.sep):
            raise LeadsOut(path, real)
    with open_regular(path, _PLAIN) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise TooLarge(path, size, limit)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(path, len(data), limit)
    return data


def said(error: OSError) -> str:
    """What was wrong with a file `read_bounded` (or `open_regular`) did not read, for a message that names the
    file itself: what it is and what to do, never a bare errno."""
    if isinstance(error, (NotRegular, LeadsOut, TooLarge)):
        return str(error.strerror)
    if isinstance(error, FileNotFoundError):
        return "vanished as it was read (or a link to nothing); put the file back, or remove the name"
    if isinstance(error, IsADirectoryError):
        return f"a folder, not a regular file: {_PLAIN}"
    if isinstance(error, PermissionError):
        return "cannot be read (permission denied); make it readable"
    if error.errno == errno.ELOOP:
        return "a link that loops; put the file itself in its place"
    return f"cannot be read ({error.strerror or error})"


def read_regular(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the regular file `path`, read once (NotRegular, OSError otherwise)."""
    with open_regular(path) as handle:
        return handle.read()


def file_digest(path: str | os.PathLike[str]) -> str:
    """The sha256 of a regular file's bytes, read in pieces (memory bounded whatever its size); what else it is,
    said instead: "no regular file", "unreadable: <errno>" (a result keyed on it is then keyed on that)."""
    import hashlib  # (here: the hook reads its index with `read_bounded`, loading only what its guard names)

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
    import hashlib  # (see `file_digest`)

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


__all__ = ["SETTINGS_BYTES", "LeadsOut", "NotRegular", "Shadowed", "TooLarge", "digest", "file_digest", "found_in",
           "open_regular", "read_bounded", "read_regular", "resolved", "said"]
