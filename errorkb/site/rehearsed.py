"""The pages `errorkb check` rehearsed within budget before: not rendered again while their bytes are the same.

Rehearsing every page (`budget.rehearse`) is most of what `errorkb check` costs, and an author runs it after every
edit, which changes one entry's page and the pages that list it. A page's render depends on its Markdown and on
what renders it (`renderer_digest`): the site's Markdown settings as errorkb resolves them
(`settings.markdown_settings`), the interpreter, the budget's limits, and the bytes of every file of the code the
renderer ran, as the rehearsal's children name them (`budget.rendering_code`; the standard library but). A
release names no code: a Markdown extension in a module of one's own, an editable install or a package changed in
place keeps its release (or has none) while its code, or a module it imports, changes. A page whose digest of
both is recorded here rendered within the budget in a child of this user's, and renders within it again; any
other page (a changed one, a new one, one that went wrong) is rehearsed. Only pages that passed are recorded, so
a hostile page is found by every run.

The record is machine-local state under the cache folder, read as the verdict cache reads its records (never
where the run is untrusted, never a file git tracks, another user owns, or the group or anyone may write, never
through a link out of its folder): a forged record would let a hostile page pass unrendered.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from errorkb.core.cachetrust import committed_link, tracked
from errorkb.results import store
from errorkb.site import budget

FOLDER = "check"  # below the project's cache folder
FILE = "rehearsed.json"
FORMAT = 2
KEPT = 20_000  # digests kept (most recent first): a few pages per entry for many edits, ~1.4 MB
CODE_FILES = 20_000  # files of rendering code kept (a site's renderer runs a few hundred): more keeps no record


def settings_digest(config_file: Path | None) -> str | None:
    """What renders a page but its code, as a digest: the resolved Markdown settings of `config_file`, the
    interpreter, the budget's limits and the folders packages are installed in as they stand (installing one
    adds a plugin a lookup by name may find). None where the settings cannot be read or hold something without
    a stable name (nothing is then skipped: the rehearsal says why)."""
    from errorkb.site.settings import markdown_settings

    try:
        extensions, configs = markdown_settings(config_file) if config_file else (None, None)
        settings = json.dumps([extensions, configs], sort_keys=True, default=_named)
    except Exception:  # the rehearsal reads them again, and reports what is wrong at its line
        return None
    limits = (budget.CPU_SECONDS, budget.CHARS_PER_SECOND, budget.RECURSION_LIMIT, budget.MEMORY_BYTES)
    said = json.dumps([FORMAT, settings, sys.version, sys.executable, limits, _installed()])
    return hashlib.sha256(said.encode("utf-8")).hexdigest()


def renderer_digest(settings: str, code: Iterable[str]) -> str:
    """What renders a page, as a digest: `settings` (`settings_digest`) and the bytes of each file of `code`
    (`budget.rendering_code`: the files the renderer ran), a file that cannot be read as such."""
    digest = hashlib.sha256(settings.encode("ascii"))
    for path in sorted(code):
        digest.update(f"\0{path}\0{_file_digest(path)}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _file_digest(path: str) -> str:
    """The digest of a regular file's bytes; what else it is, said. A FIFO or a device (a module may name any file
    its `__file__`, and the record is read back) is never read: its reading would block, or never end."""
    try:
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return "no regular file"
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError as error:
        return f"unreadable: {error.errno}"


def _installed() -> list[tuple[str, int | None]]:
    """The folders packages are installed in, each with when its list of files last changed."""
    import site

    folders = sorted({*site.getsitepackages(), site.getusersitepackages()})
    stamps: list[tuple[str, int | None]] = []
    for folder in folders:
        try:
            stamps.append((folder, os.stat(folder).st_mtime_ns))
        except OSError:
            stamps.append((folder, None))
    return stamps


def _named(value: object) -> str:
    """A function or class the settings name (`!!python/name:`), by its name; anything else has none."""
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if callable(value) and isinstance(module, str) and isinstance(name, str):
        return f"{module}:{name}"
    raise TypeError(f"no stable name for {type(value).__name__}")


def page_digest(renderer: str, markdown: str) -> str:
    return hashlib.sha256(f"{renderer}\0{markdown}".encode("utf-8", "surrogatepass")).hexdigest()


class Rehearsed:
    """The digests of pages that rendered within budget before, as this user recorded them."""

    def __init__(self, cache_dir: Path, trusted: bool):
        self.folder = cache_dir / FOLDER
        self.path = self.folder / FILE
        self.trusted = trusted
        # the cache folder may be the author's link (on another disk), never one a commit made
        self.unusable = not trusted or store.leads_out(self.folder) or committed_link(cache_dir)
        self.clean, self.code = self._read() if not self.unusable else ([], [])
        self.known = set(self.clean)

    def _read(self) -> tuple[list[str], list[str]]:
        """The digests of the pages that passed, and the files of the code that rendered them."""
        try:
            text = store.read_regular(self.path)
        except store.Unreadable:
            return [], []
        if text is None or not store.written_here(self.path, text) or FILE in {Path(name).name for name in
                                                                  tracked(self.folder) or []}:
            return [], []
        try:
            document = json.loads(text)
        except ValueError:
            return [], []
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            return [], []
        digests, code = document.get("clean"), document.get("code")
        if not isinstance(digests, list) or not isinstance(code, list) or len(code) > CODE_FILES or \
                not all(isinstance(one, str) for one in code):
            return [], []  # the digests name no code they can be checked against
        return [one for one in digests if isinstance(one, str)], code

    def __contains__(self, digest: str) -> bool:
        return digest in self.known

    def record(self, passed: Iterable[str], code: list[str]) -> None:
        """Keep `passed` (digests of pages that rendered within budget this run, with the code `code`) first; a
        cache that cannot be written is given up without a word: it only saves time."""
        if self.unusable or len(code) > CODE_FILES:
            return
        fresh = list(dict.fromkeys(passed))
        kept = fresh + [one for one in self.clean if one not in set(fresh)]
        temporary = self.folder / f"{FILE}.{secrets.token_hex(6)}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "w",
                           encoding="utf-8") as handle:
                json.dump({"format": FORMAT, "clean": kept[:KEPT], "code": code}, handle)
            temporary.replace(self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)


def rehearse(rehearsals: list[budget.Rehearsal], config_file: Path | None, memo: Rehearsed | None,
             **options: Any) -> tuple[list[budget.Verdict], int]:
    """`budget.rehearse`, but a page `memo` holds rendered within budget before is not rendered again: its
    verdict is that it passes. Records the pages that pass. Returns the verdicts in order and how many pages
    were skipped.

    The record names the files of the code that rendered its pages: the renderer is that code as it is now. A
    run that renders imports what its pages need (a lexer for a new language): the record then names that too,
    and a page this run skipped is recorded as passing with it, as the code it rendered with is unchanged and
    holds every module it ran (none of the modules added ran for it)."""
    settings = settings_digest(config_file) if memo is not None else None
    if memo is None or settings is None:
        return budget.rehearse(rehearsals, config_file, **options), 0
    renderer = renderer_digest(settings, memo.code)
    digests = [page_digest(renderer, one.markdown) for one in rehearsals]
    todo = [index for index, digest in enumerate(digests) if digest not in memo]
    ran: set[str] = set()
    rendered = budget.rehearse([rehearsals[index] for index in todo], config_file, code=ran,
                               **options) if todo else []
    verdicts: list[budget.Verdict] = [budget.Verdict(one.key, True) for one in rehearsals]
    for index, verdict in zip(todo, rendered, strict=True):
        verdicts[index] = verdict
    # every page rendered: the code is what ran this time (a module no longer imported is forgotten)
    code = sorted(ran if len(todo) == len(rehearsals) else ran | set(memo.code))
    if code != memo.code:
        renderer = renderer_digest(settings, code)
        digests = [page_digest(renderer, one.markdown) for one in rehearsals]
    memo.record((digest for digest, verdict in zip(digests, verdicts, strict=True) if verdict.ok), code)
    return verdicts, len(rehearsals) - len(todo)
