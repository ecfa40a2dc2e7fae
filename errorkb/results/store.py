"""Writing a report file so that no result is ever lost.

Stages of `update`, one function each:
1. `locked`     an exclusive lock on the file's folder, held from reading to replacing: two runs
                writing the same file at once take turns, and the second merges the first's
                results instead of overwriting them. Once it is taken, `held` keeps Ctrl-C and
                SIGTERM (a CI job's time limit) from acting until the file is whole: a run's
                results, measured for minutes, were lost to a signal in the middle of the write.
2. read         what is on disk *now* (not when the run started), through the caller's reader;
                a file that is there but does not parse is never replaced (`Refused`): this
                run's own data is written beside it (`rescue_path`) and the message says how to
                recover.
3. `replace`    the merged data written to a temporary file in the same folder, given the mode
                the old file had, and renamed over it (atomic: a reader sees the old file or the
                new one). Temporary files a killed writer left behind are removed first, under
                the lock, when no other writer can be using them.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import fcntl
import json
import math
import os
import re
import secrets
import signal
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from errorkb.core import filebytes
from errorkb.core.encoding import other_encoding
from errorkb.core.nesting import depth_of, line_past
from errorkb.core.problems import quoted

Data = TypeVar("Data")


class Unreadable(ValueError):
    """A file that is there but is not what it should be; the message names the file and why. It
    quotes the file (a name, a key a hand or a pull request put there), and the CLI and the site's
    build log print it: quoted as shown, never acted on (`errorkb.core.problems.quoted`)."""

    def __init__(self, message: str):
        super().__init__(quoted(message))


class Refused(Exception):
    """The file on disk could not be read, so it was left as it was; `rescued` holds this run's data."""

    def __init__(self, message: str, rescued: Path | None = None):
        super().__init__(quoted(message))
        self.rescued = rescued


# Seconds a writer waits for another's lock. A merge holds it for a second or two; a writer that holds it longer is
# stopped (Ctrl-Z in another terminal, a debugger): waiting on it, the run that had finished its checks hung for ever
# without a word, and, its Ctrl-C held until the write was done (`held`), could not be interrupted either.
LOCK_WAIT = 300.0


class LockHeld(OSError):
    """Another process held the folder's lock for all of `LOCK_WAIT`: nothing was written (the run's data is
    rescued, `update`)."""


@contextlib.contextmanager
def locked(folder: Path) -> Iterator[None]:
    """Hold the exclusive lock of `folder` (created if needed); released when the process dies (a writer that dies
    holding it never stops the next). Waited for at most `LOCK_WAIT` seconds, said once when it is held (LockHeld)."""
    folder.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _lock(descriptor, folder)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _lock(descriptor: int, folder: Path) -> None:
    """The exclusive lock of the open `folder`, waited for as `locked` says."""
    deadline, pause = time.monotonic() + LOCK_WAIT, 0.01
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"errorkb: waiting for another process writing into {folder} (it holds the folder's "
                             f"lock; at most {LOCK_WAIT:.0f} s)\n")
            sys.stderr.flush()
    while True:
        time.sleep(min(pause, max(deadline - time.monotonic(), 0)))
        pause = min(pause * 2, 0.5)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise LockHeld(errno.EWOULDBLOCK, f"another process has held its folder's lock for {LOCK_WAIT:.0f} s "
                                                  "(a writer stopped mid-write: Ctrl-Z, a debugger?)") from None


HELD = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def held() -> Iterator[None]:
    """`HELD` signals noted, not acted on, until the block ends; then each noted one is raised again under the
    handler it had (Ctrl-C's interrupt, a verify run's SIGTERM interrupt, SIGTERM's default end of the process).
    In the main thread only, where Python runs its handlers: elsewhere a signal never stops the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []
    earlier = {signum: handler for signum in HELD
               if (handler := signal.getsignal(signum)) is not None}  # None: a handler Python did not install
    for signum in earlier:
        signal.signal(signum, lambda number, frame: noted.append(number))
    refused: Refused | None = None
    try:
        yield
    except Refused as raised:
        refused = raised
        raise
    finally:
        for signum, handler in earlier.items():
            signal.signal(signum, handler)
        for number in dict.fromkeys(noted):
            _act(number, earlier[signal.Signals(number)], refused)


def _act(number: int, handler: object, refused: Refused | None) -> None:
    """Raise signal `number` again under `handler`. Where the write was refused (the run's data rescued) and the
    signal stops the command, the refusal is said first: the interrupt (or the end of the process) would take
    the one message naming the rescued file with it, and the user would never learn where the run went."""
    if refused is not None and handler is signal.SIG_DFL:  # the process ends here: its last words
        _say(refused)
    try:
        signal.raise_signal(number)
    except BaseException:
        if refused is not None:
            _say(refused)
        raise


def _say(refused: Refused) -> None:
    with contextlib.suppress(OSError, ValueError):  # a closed or full stderr: the rescued file is there all the same
        sys.stderr.write(f"errorkb: {refused}\n")
        sys.stderr.flush()


# One report or matrix file. Sized from this repository's (2 MB and 5 MB), with room for them to grow six
# times over: parsed and validated, a file costs about 6 (a report) and 8 (a matrix) times its size in memory
# (benchmarks/report_memory.py), so the largest file accepted costs about a quarter of a gigabyte; at 128 MiB,
# a hand-edited or hostile file took a gigabyte of the build's memory.
MAX_BYTES = 32 * 1024 * 1024


def read_regular(path: Path) -> str | None:
    """The file's text, None when there is none; `Unreadable` for anything that is not a regular
    UTF-8 file of at most `MAX_BYTES` lying in its folder. A FIFO is never opened (it would block),
    and is looked for again once the file is open (one swapped in after the stat); a file past the
    limit is never read whole (a pull request's 4 GB file took the memory); a link to a file outside
    the folder is refused (the pages quote reports: nothing from outside the repository)."""
    if leads_out(path.parent):
        raise Unreadable(f"{path.parent}: {LEADS_OUT}")
    try:  # the one reader of a knowledge base's files (`filebytes.read_bounded`), in this module's words
        data = filebytes.read_bounded(path, MAX_BYTES, inside=path.parent)
    except FileNotFoundError:
        return None
    except filebytes.NotRegular as error:
        raise Unreadable(f"{path}: not a regular file ({error.what})") from None
    except IsADirectoryError:
        raise Unreadable(f"{path}: not a regular file (a folder)") from None
    except filebytes.LeadsOut:
        raise Unreadable(f"{path}: a link that leads out of its folder; put the file itself there") from None
    except filebytes.TooLarge:
        raise Unreadable(f"{path}: more than {MAX_BYTES:,} bytes, more than errorkb writes; restore it or move it "
                         "away") from None
    except OSError as error:
        raise Unreadable(f"{path}: {error.strerror or error}") from None
    other = other_encoding(data)
    if other:
        raise Unreadable(f"{path}: {other}; save it as UTF-8")
    try:  # an editor's "UTF-8 with BOM": the mark is no part of the text (and is not written back)
        return data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise Unreadable(f"{path}: byte 0x{data[error.start]:02x} (line {line}) is not UTF-8; save the file as "
                         "UTF-8") from None


_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def written_here(path: Path, text: str) -> bool:
    """Whether the file read from `path` as `text` is one only the user running errorkb could have written: theirs,
    writable by them alone, and still holding that text. The one rule for what errorkb keeps under its cache and
    reuses without doing the work again (the verdict cache's records, `errorkb check`'s rehearsed pages): a file
    another user owns, or one the group or anyone may write (a cache folder in a shared checkout), holds whatever its
    writer chose, under a key anyone can compute. Told by the open file itself, whose bytes must be the text read
    (a file swapped in or rewritten meanwhile is not vouched for)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(descriptor, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & _OTHERS_WRITE:
            return False
        data = handle.read(MAX_BYTES + 1)
    return data.removeprefix(codecs.BOM_UTF8).decode("utf-8", errors="replace") == text


LEADS_OUT = "a link that leads out of the folder holding it; put the folder itself there"


def leads_out(folder: Path) -> bool:
    """Whether `folder` is a link to a place outside the folder holding it: the settings' folders
    are checked where the project loads, but not those errorkb makes below them (reports/matrix/),
    and through such a link the pages quoted a file from elsewhere and the writers wrote there."""
    return folder.is_symlink() and not Path(os.path.realpath(folder)).is_relative_to(
        os.path.realpath(folder.parent))


def parse_json(text: str) -> Any:
    """`text` as JSON, where a key given twice in one object is an error (`ValueError`, naming the
    key and the line of its second value): a parser keeps the last value silently, and a hand-edited
    file (a merge conflict resolved by keeping both sides) would lose the other at the next write.
    `NaN` and `Infinity`, which Python's parser reads and JSON has not, are errors too: written back,
    they break every other reader of the file. So is a lone surrogate (`"\\ud800"`, half of a
    UTF-16 pair, escaped): Python reads it, and no UTF-8 file or page can hold it (the site's build
    stopped with a traceback at the first page quoting it, and the writer would fail next). So is a
    number too large for a double (`1e999`): valid JSON, but Python reads it as infinity, which was
    written back as `Infinity` (refused at the next read) or as null (the measurement gone)."""
    try:
        data = json.loads(text, object_pairs_hook=_unique, parse_constant=_not_json,
                          parse_float=lambda number: _finite(number, text))
    except RecursionError:
        raise ValueError(_too_deep(text)) from None
    except _Twice as twice:
        raise ValueError(f"duplicate key '{twice.key}'{_second_line(text, twice.key)}; keep one of them") from None
    except ValueError as error:
        digits = _LONG_INTEGER.search(text) if "integer string conversion" in str(error) else None
        if digits is None:
            raise
        line = text.count("\n", 0, digits.start()) + 1
        raise ValueError(f"a number of {len(digits.group()):,} digits (line {line}), "
                         "longer than any errorkb writes; write the value errorkb measured") from None
    if depth_of(data) > MAX_DEPTH:
        raise ValueError(_too_deep(text))
    _refuse_surrogates(text)
    return data


# Digits past Python's limit on reading an integer (4,300), which said "use sys.set_int_max_str_digits()"
_LONG_INTEGER = re.compile(r"(?<![\w.\"])\d{4301,}")
MAX_DEPTH = 16  # lists and objects inside each other: errorkb's reports and matrix files nest 6 at most


def _too_deep(text: str) -> str:
    """Values nested past `MAX_DEPTH`: Python's parser recursed until it stopped (a RecursionError
    traceback, at 100,000 `[`), and a file a few hundred deep parsed but could not be written back."""
    line = line_past(text, MAX_DEPTH)
    return (f"values nested more than {MAX_DEPTH} deep{f' (line {line})' if line else ''}, deeper than errorkb "
            "writes; restore the file or move it away")


# `\uD800`-`\uDFFF` escaped: an escape where an even run of backslashes (none included) comes before it (an odd one
# escapes the `\` itself). Found by its literal start: a pattern opening with a look-behind was tried at every
# character, and took a quarter of reading a 30 MB report.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD]([89a-fA-F])[0-9a-fA-F]{2}")
_HIGH = "89abAB"  # the first half of a pair: \uD800-\uDBFF; the second is \uDC00-\uDFFF


def _refuse_surrogates(text: str) -> None:
    """Raise `ValueError` at the first escaped lone surrogate of the JSON `text` (a key or a value): a first half
    the escape of a second half does not follow at once, or a second half no first half comes before (the
    parser joins such a pair into one character, and leaves any other half as it is). The text itself, UTF-8
    read, holds no surrogate: only an escape makes one. Read from the text, not its values: a walk of every
    string of a large file cost more than parsing it."""
    if "\\ud" not in text and "\\uD" not in text:
        return
    waiting: re.Match[str] | None = None  # a first half, whose second half must start where it ends
    for found in _SURROGATE_ESCAPE.finditer(text):
        start = before = found.start()
        while before and text[before - 1] == "\\":
            before -= 1
        if (start - before) % 2:  # `\\ud800`: a backslash, then text
            continue
        if waiting is not None:
            if found.group(1) not in _HIGH and start == waiting.end():
                waiting = None
                continue
            _lone(text, waiting)
        if found.group(1) not in _HIGH:
            _lone(text, found)
        waiting = found
    if waiting is not None:
        _lone(text, waiting)


def _lone(text: str, found: re.Match[str]) -> None:
    raise ValueError(f"a lone surrogate {found.group().lower()} (line {text.count(chr(10), 0, found.start()) + 1}) "
                     "is half of a character, not text a file can hold; remove it or write the whole character")


def _finite(number: str, text: str) -> float:
    """`number` as a float; `ValueError` naming it and its line when no double holds it."""
    value = float(number)
    if math.isinf(value):
        found = re.search(rf"(?<![\w.+-]){re.escape(number)}(?![\w.])", text)
        at = found.start() if found else 0
        shown = number if len(number) <= 24 else f"{number[:12]}...{number[-6:]} ({len(number)} characters)"
        raise ValueError(f"the number {shown} (line {text.count(chr(10), 0, at) + 1}) is too large for a double: "
                         "no reader of the file can hold it; write the value errorkb measured")
    return value


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON value")


class _Twice(ValueError):
    """A key given twice in one object (`_unique`): `parse_json` says where."""

    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """The object of `pairs`; `_Twice` at the first key given twice. Called for every object of a file: the
    pairs are looked at one by one only where a key is given twice."""
    seen = dict(pairs)
    if len(seen) != len(pairs):
        keys: set[str] = set()
        for key, _ in pairs:
            if key in keys:
                raise _Twice(key)
            keys.add(key)
    return seen


def _second_line(text: str, key: str) -> str:
    """' (line N)' of the key's second appearance as a key in `text`, when it can be told."""
    found = list(re.finditer(re.escape(json.dumps(key)) + r"\s*:", text))
    return f" (line {text.count(chr(10), 0, found[1].start()) + 1})" if len(found) > 1 else ""


def leftovers(path: Path) -> list[Path]:
    """Temporary files of `path` that a writer left behind."""
    return sorted(path.parent.glob(f".{path.name}.*.tmp"))


def replace(path: Path, text: str, mode: int | None = None) -> None:
    """Write `text` to `path` atomically, with `mode`, else the mode of the file it replaces, else
    (a new file) the umask's. The text is written to a temporary file only its owner can read
    when the final mode is known (a 0600 report was readable by all while it was written), opened
    further only once complete. Call it holding `locked(path.parent)`."""
    for stale in leftovers(path):
        stale.unlink(missing_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except OSError:
            mode = None
    temporary = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600 if mode is not None else 0o666)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            if mode is not None:
                os.fchmod(out.fileno(), mode)
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


RESCUED_MODE = 0o600  # what a run measured from strangers' code, saved where it was not asked for: its owner's


def rescue_path(path: Path) -> Path:
    """Where a run's data goes when `path` cannot be read: beside it, named for the moment."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return path.with_name(f"{path.stem}.rescued-{stamp}{path.suffix}")


def rescue(path: Path, text: str, beside: bool = True) -> tuple[Path | None, str]:
    """Save `text`, a run's data that `path` cannot take, and say where: beside `path` when its folder
    can be written (and `beside`), else in the system's temporary folder (a read-only or full disk: the
    run's results are not lost with the write). (None, why) when neither can be written. Either file
    is new (never one that was there), readable by its owner only (`RESCUED_MODE`), and, in the shared
    temporary folder, named unpredictably (`tempfile.mkstemp`): no other user can read it or take its name."""
    near = rescue_path(path)
    failures = []
    for folder in (near.parent, Path(tempfile.gettempdir())) if beside else (Path(tempfile.gettempdir()),):
        prefix = f"{near.stem}." if folder == near.parent else f"errorkb-{near.stem}."
        try:
            return _new_private_file(folder, prefix, near.suffix, text), ""
        except OSError as error:
            failures.append(f"{folder}: {error.strerror or error}")
    return None, "; ".join(failures)


def _new_private_file(folder: Path, prefix: str, suffix: str, text: str) -> Path:
    """A new file in `folder` holding `text`, mode `RESCUED_MODE`; nothing is left behind on failure."""
    descriptor, name = tempfile.mkstemp(suffix=suffix, prefix=prefix, dir=folder)  # O_EXCL, mode 0600
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            os.fchmod(out.fileno(), RESCUED_MODE)
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name)


def update(path: Path, read: Callable[[Path], Data | None], combine: Callable[[Data | None], Data],
           text: Callable[[Data], str], recover: str) -> Data:
    """Under the folder's lock: read what is on disk, combine it with this run's data, replace it.

    `read` returns None when there is no file and raises `Unreadable` for one that does not parse;
    `combine(None)` is this run's data alone. `recover` finishes the refusal's message: how to
    bring the file back (e.g. "restore it from git"). Raises `Refused` with the rescued file.

    A `path` that is a link to a file of its folder (or below) is written through, as an editor saving it
    would: the link stays, and the file it names holds the merge (replacing the link left that file as it
    was, without a word). A link leading elsewhere is refused, whether its file is there or not."""
    path = written_through(path)
    if path.is_symlink():  # `written_through` follows only a link that stays in its folder
        _refuse(path, text(combine(None)), f"{path}: a link that leads out of its folder (or loops); left as it was",
                "put the file itself there")
    if leads_out(path.parent):  # nothing is written through it, not even the rescue beside the file
        _refuse(path, text(combine(None)), f"{path.parent}: {LEADS_OUT}; nothing was written there", recover,
                beside=False)
    if path.exists() and not path.is_file():  # a device, a FIFO: its folder (/dev) is no place for a run's data
        _refuse(path, text(combine(None)), f"{path}: not a regular file; left as it was", recover, beside=False)
    with held():  # over the rescue too: a signal that acted between the failed write and the rescue lost the run
        try:
            with locked(path.parent):
                try:
                    current = read(path)
                except Unreadable as error:
                    _refuse(path, text(combine(None)), f"{error}; left as it was", recover)
                data = combine(current)
                written = text(data)
                if len(written.encode()) > MAX_BYTES:  # no later read would take it: the file there would be lost
                    _refuse(path, text(combine(None)), f"{path}: would be more than {MAX_BYTES:,} bytes, the most "
                            "errorkb reads back; left as it was", "make room (fewer records in one file, or a larger "
                            "errorkb.results.store.MAX_BYTES, measured with benchmarks/report_memory.py)")
                replace(path, written)
                return data
        except OSError as error:  # a read-only folder, a full disk: the file stays as it was, the run's data is saved
            _unwritable(path, text(combine(None)), error)


def _unwritable(path: Path, data: str, error: OSError) -> NoReturn:
    """Raise `Refused` for a `path` whose folder cannot be written (`error`), this run's `data` saved elsewhere."""
    if isinstance(error, LockHeld):
        _refuse(path, data, f"{path}: cannot be written ({error.strerror}); left as it was",
                "end or resume that process (`jobs`, `fg`)")
    blocking = _not_a_folder(path.parent)
    if blocking is not None:  # mkdir said "File exists", which names neither the file nor what to do
        _refuse(path, data, f"{path}: cannot be written ({blocking} is a file, not a folder)", f"move {blocking} away")
    _refuse(path, data, f"{path}: cannot be written ({error.strerror or error}); left as it was",
            f"make {path.parent} writable (or free space)")


def written_through(path: Path) -> Path:
    """The file `path` names: itself, or where the link it is leads, when that lies in its folder or below."""
    if not path.is_symlink():
        return path
    target = Path(os.path.realpath(path))
    return target if target.is_relative_to(os.path.realpath(path.parent)) else path


def _not_a_folder(folder: Path) -> Path | None:
    """The nearest of `folder` and the folders above it that is there, when it is not a folder."""
    for place in (folder, *folder.parents):
        if place.exists():
            return None if place.is_dir() else place
    return None


def _refuse(path: Path, data: str, what: str, recover: str, beside: bool = True) -> NoReturn:
    """Raise `Refused`: `what` happened to `path`, this run's `data` saved (`rescue`), how to recover."""
    rescued, why = rescue(path, data, beside)
    if rescued is None:
        raise Refused(f"{what}; this run's results could not be saved either ({why})") from None
    raise Refused(f"{what}, this run's results are in {rescued}. To recover: {recover}, then errorkb report merge "
                  f"{path} {rescued}", rescued) from None


__all__ = ["LEADS_OUT", "LOCK_WAIT", "LockHeld", "Refused", "Unreadable", "leads_out", "leftovers", "locked",
           "parse_json", "read_regular", "replace", "rescue", "rescue_path", "update", "written_through"]
