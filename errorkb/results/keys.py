"""What a verdict depends on, defined once: the verdict cache, the version matrix and the pages'
*stale* marks all ask here whether a verdict still holds.

- `inputs_digest`  what the knowledge base said when a verdict was made: the whole serialized
                   entry (every field: the judge reads wordings, `kind`, `api`, needs...) but
                   those only the lookup reads (`LOOKUP_ONLY`), and every file of the entry's
                   snippet folder, recursively (a snippet may import a module or read a data
                   file beside it). A record or matrix result made from other inputs is stale,
                   and everything that shows one says why in the words of `STALE_WHY`.
- `VerdictKey`     the inputs, which check (role, module), and where it ran: the target's
                   fingerprint, the runtime's release, the device kind, Python, the library
                   profile and the verifier's own code. The verdict cache stores a verdict under
                   its digest and reuses it only while every part is unchanged.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import asdict, dataclass
from pathlib import Path

from errorkb.core.entry import Entry
from errorkb.core.project import Project
from errorkb.core.snippets import walk

_CHUNK = 1 << 20


def folder_digest(folder: Path) -> str:
    """Every name under `folder` but a folder's, and what it holds, recursively: a file's bytes, a
    link's target (never followed: the check sees the folder, not where a link leads), the kind of
    anything else (a FIFO is named, never opened). An absent folder has a digest too.

    A folder counts only through what it holds (a file's name carries the folders above it): an
    empty one holds nothing a check could import or read (listing it takes `os`, which the lint
    refuses), and a run that left one behind (a Trainer's `output_dir`) made every verdict and
    matrix result of the entry read stale with no change a reader or author could see."""
    digest = hashlib.sha256()
    for path in _walk(folder):
        relative = path.relative_to(folder).as_posix()
        try:
            mode = path.lstat().st_mode
        except OSError:
            continue
        if stat.S_ISLNK(mode):
            digest.update(os.fsencode(f"link {relative} -> {os.readlink(path)}\0"))
        elif stat.S_ISREG(mode):
            digest.update(os.fsencode(f"file {relative}\0"))
            digest.update(_file_hash(path).encode())
        elif not stat.S_ISDIR(mode):
            digest.update(os.fsencode(f"special {relative} {stat.S_IFMT(mode)}\0"))
    return digest.hexdigest()


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    for top, folders, files in walk(folder):  # not os.walk: it recurses once per level
        folders.sort()
        found += [Path(top) / name for name in sorted([*folders, *files])]
    return sorted(found)


def _file_hash(path: Path) -> str:
    """The file's bytes hashed; opened without blocking and looked at again once open: a FIFO swapped in
    after the walk looked (a checkout rewritten under `mkdocs serve`) blocked the hash forever."""
    digest = hashlib.sha256()
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return "not a regular file"
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    except OSError as error:
        return f"unreadable: {error.strerror}"
    return digest.hexdigest()


# Why a result is stale, in the words every page, the JSON API and the CLI show beside the mark: a
# reader must never see "stale" without it (a record written by an older errorkb, which does not
# say what it was made from, is stale too: `holds`).
STALE_WHY = "the entry or a file of its snippet folder changed since it ran"


# The entry's fields that tell a paste of its error from others worded alike: only the lookup reads
# them, and no verdict depends on them, so tuning the lookup keeps every verdict and matrix result
# fresh (it once marked the whole matrix stale). Every other field, and any field added later,
# counts. tests/verify/test_verify_cache.py checks that no code a verdict comes from reads these.
LOOKUP_ONLY = frozenset({"diagnosis", "recognised_by"})


def inputs_digest(entry: Entry, folder: Path) -> str:
    """The entry as the loader built it (but `LOOKUP_ONLY`) and its snippet folder, in one digest."""
    facts = {"entry": entry.model_dump(mode="json", exclude=set(LOOKUP_ONLY)), "snippets": folder_digest(folder)}
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


def project_inputs(project: Project, entry: Entry) -> str:
    """`inputs_digest` of an entry of `project`, with its snippet folder where the project keeps it."""
    return inputs_digest(entry, project.snippets / entry.id)


def holds(made_from: str | None, now: str) -> bool:
    """Whether a result made from `made_from` inputs still speaks for the inputs `now`; a result
    that does not say what it was made from (written by an older errorkb) does not."""
    return made_from is not None and made_from == now


@dataclass(frozen=True)
class VerdictKey:
    """Everything a verdict depends on, by name (tests flip each one)."""

    inputs: str  # inputs_digest(entry, snippet folder)
    role: str
    snippet: str  # sha256 of the bytes the check runs (also inside `inputs`: named for the record)
    module: str  # the module that defines source.function
    target: str  # the target's fingerprint: the bundled sources' hash, or '<dist>==<release>'
    runtime: str  # '<runtime>==<version>'
    device: str
    python: str
    profile: str  # the library profile's digest ([tool.errorkb.library])
    verifier: str  # the verifier's version and the hash of its code

    def digest(self) -> str:
        return hashlib.sha256(json.dumps(asdict(self), sort_keys=True).encode()).hexdigest()


__all__ = ["LOOKUP_ONLY", "STALE_WHY", "VerdictKey", "folder_digest", "holds", "inputs_digest", "project_inputs"]
