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
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from errorkb.core import filebytes
from errorkb.core.cachetrust import committed_link, tracked
from errorkb.results import store
from errorkb.site import budget

FOLDER = "check"  # below the project's cache folder
FILE = "rehearsed.json"
FORMAT = 3
KEPT = 20_000  # digests kept (most recent first): a few pages per entry for many edits, ~1.4 MB
CODE_FILES = 20_000  # files of rendering code kept (a site's renderer runs a few hundred): more keeps no record
PATH_ENTRIES = 10_000  # folders of the children's import path kept: more keeps no record
# What makes the children's import path, besides the interpreter (`sys.executable`) and its installed folders
# (`_installed`): a folder added to it may hold a module that shadows one the pages rendered with.
_PATH_ENVIRONMENT = ("PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONNOUSERSITE", "PYTHONPLATLIBDIR")


def settings_digest(config_file: Path | None) -> str | None:
    """What renders a page but its code, as a digest: the resolved Markdown settings of `config_file`, the
    interpreter, the budget's limits, the folders packages are installed in as they stand (installing one
    adds a plugin a lookup by name may find) and what makes the children's import path (`_PATH_ENVIRONMENT`, and
    this folder where PYTHONPATH names one relative to it). None where the settings cannot be read or hold something
    without a stable name (nothing is then skipped: the rehearsal says why)."""
    from errorkb.site.settings import markdown_settings

    try:
        extensions, configs = markdown_settings(config_file) if config_file else (None, None)
        settings = json.dumps([extensions, configs], sort_keys=True, default=_named)
    except Exception:  # the rehearsal reads them again, and reports what is wrong at its line
        return None
    limits = (budget.CPU_SECONDS, budget.CHARS_PER_SECOND, budget.RECURSION_LIMIT, budget.MEMORY_BYTES)
    environment = [os.environ.get(name) for name in _PATH_ENVIRONMENT]
    said = json.dumps([FORMAT, settings, sys.version, sys.executable, limits, _installed(), environment, _here()],
                      default=str)
    return hashlib.sha256(said.encode("utf-8", "surrogatepass")).hexdigest()


def _here() -> str | None:
    """This folder, where a relative entry of PYTHONPATH makes the children's path of it (else nothing: checking
    from another folder renders nothing again)."""
    if all(os.path.isabs(entry) for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry):
        return None
    try:
        return os.getcwd()
    except OSError:
        return "unknown"


Seen = dict[budget.Module, tuple[str | None, str]]  # module → (the file its name resolves to now, its digest)


def observe(code: Iterable[budget.Module], path: Sequence[str]) -> Seen:
    """Each module of `code` ((name or None, file): the record's, or what a run rendered with) as it stands now:
    the file the import system resolves its name to with `path` as the import path (a module newly shadowing it is
    another file: `filebytes.resolved`), and the digest of its file's bytes (`filebytes.file_digest`: a FIFO or a
    device, which a module may name its `__file__`, is never read)."""
    known: dict[str, Any] = {}
    return {(name, file): (filebytes.resolved(name, path, known) if name is not None else file,
                           filebytes.file_digest(file)) for name, file in code}


def renderer_digest(settings: str, seen: Seen) -> str:
    """What renders a page, as a digest: `settings` (`settings_digest`) and, of each module of the code the
    renderer ran (`observe`), its name, its file, the file its name resolves to and the digest of its bytes, by the
    one procedure every result keyed on code uses (`filebytes.digest`)."""
    return filebytes.digest(((f"{name or ''}\0{file}\0{found}", digest.encode("utf-8", "surrogatepass"))
                             for (name, file), (found, digest) in seen.items()), seed=settings)


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
        self.clean, self.code, self.import_path = self._read() if not self.unusable else ([], [], [])
        self.known = set(self.clean)

    def _read(self) -> tuple[list[str], list[budget.Module], list[str]]:
        """The digests of the pages that passed, the modules of the code that rendered them and the import path
        the renderer found them on."""
        nothing: tuple[list[str], list[budget.Module], list[str]] = ([], [], [])
        try:
            text = store.read_regular(self.path)
        except store.Unreadable:
            return nothing
        if text is None or not store.written_here(self.path, text) or FILE in {Path(name).name for name in
                                                                  tracked(self.folder) or []}:
            return nothing
        try:
            document = json.loads(text)
        except ValueError:
            return nothing
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            return nothing
        digests, code, path = document.get("clean"), document.get("code"), document.get("path")
        if not isinstance(digests, list) or not isinstance(code, list) or len(code) > CODE_FILES or \
                not all(_is_module(one) for one in code) or not isinstance(path, list) or \
                len(path) > PATH_ENTRIES or not all(isinstance(one, str) for one in path):
            return nothing  # the digests name no code they can be checked against
        return [one for one in digests if isinstance(one, str)], [(name, file) for name, file in code], path

    def __contains__(self, digest: str) -> bool:
        return digest in self.known

    def record(self, passed: Iterable[str], code: list[budget.Module], path: Sequence[str]) -> None:
        """Keep `passed` (digests of pages that rendered within budget this run, with the code `code` found on the
        import path `path`) first; a cache that cannot be written is given up without a word: it only saves time."""
        if self.unusable or len(code) > CODE_FILES or len(path) > PATH_ENTRIES:
            return
        fresh = list(dict.fromkeys(passed))
        kept = fresh + [one for one in self.clean if one not in set(fresh)]
        temporary = self.folder / f"{FILE}.{secrets.token_hex(6)}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "w",
                           encoding="utf-8") as handle:
                json.dump({"format": FORMAT, "clean": kept[:KEPT], "code": code, "path": list(path)}, handle)
            temporary.replace(self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)


def _is_module(value: object) -> bool:
    return isinstance(value, list) and len(value) == 2 and isinstance(value[0], str | None) and \
        isinstance(value[1], str)


def rehearse(rehearsals: list[budget.Rehearsal], config_file: Path | None, memo: Rehearsed | None,
             **options: Any) -> tuple[list[budget.Verdict], int]:
    """`budget.rehearse`, but a page `memo` holds rendered within budget before is not rendered again: its
    verdict is that it passes. Records the pages that pass. Returns the verdicts in order and how many pages
    were skipped.

    The record names the modules of the code that rendered its pages: the renderer is that code as it is now,
    found where the import system finds it now (`observe`). A run that renders imports what its pages need (a lexer
    for a new language): the record then names that too, and a page this run skipped is recorded as passing with
    it, as the code it rendered with is unchanged and holds every module it ran (none of the modules added ran
    for it). Nothing is recorded where the code changed while the pages rendered: each file's digest, read before
    the run (the record's modules), by the child that ran it (when it first saw it) and after the run, must agree,
    and each module's name must still resolve to the file that ran; else the run's pages are rendered again next
    time. A child's look is what its import read (`budget._watch_imports`): a file saved and saved back between the
    import and the look is a change too."""
    settings = settings_digest(config_file) if memo is not None else None
    if memo is None or settings is None:
        return budget.rehearse(rehearsals, config_file, **options), 0
    before = observe(memo.code, memo.import_path)
    renderer = renderer_digest(settings, before)
    digests = [page_digest(renderer, one.markdown) for one in rehearsals]
    todo = [index for index, digest in enumerate(digests) if digest not in memo]
    ran = budget.RenderingCode()
    rendered = budget.rehearse([rehearsals[index] for index in todo], config_file, code=ran,
                               **options) if todo else []
    verdicts: list[budget.Verdict] = [budget.Verdict(one.key, True) for one in rehearsals]
    for index, verdict in zip(todo, rendered, strict=True):
        verdicts[index] = verdict
    skipped = len(rehearsals) - len(todo)
    paths = ran.paths or {tuple(memo.import_path)}
    if len(paths) != 1 or (skipped and paths != {tuple(memo.import_path)}):
        return verdicts, skipped  # children found their code on other paths than the record's pages: no record
    path = list(next(iter(paths)))
    # every page rendered: the code is what ran this time (a module no longer imported is forgotten)
    code = {(name, file) for name, file, _ in ran.modules} | (set(memo.code) if skipped else set())
    after = observe(code, path)
    looks = [*((module, digest) for module, (_, digest) in before.items() if module in after),
             *(((name, file), digest) for name, file, digest in ran.modules)]
    if any(after[module][1] != digest for module, digest in looks) or \
            any(name is not None and found != file for (name, file), (found, _) in after.items()):
        return verdicts, skipped  # the code changed while the pages rendered: what rendered them is not known
    renderer = renderer_digest(settings, after)
    digests = [page_digest(renderer, one.markdown) for one in rehearsals]
    memo.record((digest for digest, verdict in zip(digests, verdicts, strict=True) if verdict.ok), sorted(
        code, key=lambda module: (module[1], module[0] or "")), path)
    return verdicts, skipped
