"""The pages `errorkb check` rehearsed within budget before: not rendered again while their bytes are the same.

Rehearsing every page (`budget.rehearse`) is most of what `errorkb check` costs, and an author runs it after every
edit, which changes one entry's page and the pages that list it. A page's render depends on its Markdown and on
what renders it: the site's Markdown settings as errorkb resolves them (`settings.markdown_settings`), the releases
of the packages that hold the extensions, the interpreter and the budget's limits (`renderer_digest`). A page
whose digest of both is recorded here rendered within the budget in a child of this user's, and renders within
it again; any other page (a changed one, a new one, one that went wrong) is rehearsed. Only pages that passed are
recorded, so a hostile page is found by every run.

The record is machine-local state under the cache folder, read as the verdict cache reads its records (never
where the run is untrusted, never a file git tracks, another user owns, or the group or anyone may write, never
through a link out of its folder): a forged record would let a hostile page pass unrendered.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import json
import os
import secrets
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from errorkb.core.cachetrust import committed_link, tracked
from errorkb.results import store
from errorkb.site import budget

FOLDER = "check"  # below the project's cache folder
FILE = "rehearsed.json"
FORMAT = 1
KEPT = 20_000  # digests kept (most recent first): a few pages per entry for many edits, ~1.4 MB


def renderer_digest(config_file: Path | None) -> str | None:
    """What renders a page, as a digest: the resolved Markdown settings of `config_file`, the releases of the
    packages holding their extensions, the interpreter and the budget's limits. None where the settings cannot
    be read or hold something without a stable name (nothing is then skipped: the rehearsal says why)."""
    from errorkb.site.settings import markdown_settings

    try:
        extensions, configs = markdown_settings(config_file) if config_file else (None, None)
        settings = json.dumps([extensions, configs], sort_keys=True, default=_named)
    except Exception:  # the rehearsal reads them again, and reports what is wrong at its line
        return None
    tops = {"markdown", "pygments", *(str(name).split(".")[0] for name in extensions or [] if isinstance(name, str))}
    provided = importlib.metadata.packages_distributions()
    releases = sorted({(dist, _version(dist)) for top in tops for dist in provided.get(top, [top])})
    limits = (budget.CPU_SECONDS, budget.CHARS_PER_SECOND, budget.RECURSION_LIMIT, budget.MEMORY_BYTES)
    said = json.dumps([FORMAT, settings, releases, sys.version, limits, _code_digest()])
    return hashlib.sha256(said.encode("utf-8")).hexdigest()


def _named(value: object) -> str:
    """A function or class the settings name (`!!python/name:`), by its name; anything else has none."""
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if callable(value) and isinstance(module, str) and isinstance(name, str):
        return f"{module}:{name}"
    raise TypeError(f"no stable name for {type(value).__name__}")


def _version(dist: str) -> str | None:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def _code_digest() -> str:
    """errorkb's rendering code (the budget, the settings reader): a change to either rehearses every page."""
    here = Path(__file__).parent
    return hashlib.sha256(b"".join((here / name).read_bytes() for name in ("budget.py", "settings.py"))).hexdigest()


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
        self.clean: list[str] = self._read() if not self.unusable else []
        self.known = set(self.clean)

    def _read(self) -> list[str]:
        try:
            text = store.read_regular(self.path)
        except store.Unreadable:
            return []
        if text is None or not store.written_here(self.path, text) or FILE in {Path(name).name for name in
                                                                  tracked(self.folder) or []}:
            return []
        try:
            document = json.loads(text)
        except ValueError:
            return []
        if not isinstance(document, dict) or document.get("format") != FORMAT:
            return []
        digests = document.get("clean")
        return [one for one in digests if isinstance(one, str)] if isinstance(digests, list) else []

    def __contains__(self, digest: str) -> bool:
        return digest in self.known

    def record(self, passed: Iterable[str]) -> None:
        """Keep `passed` (digests of pages that rendered within budget this run) first; a cache that cannot
        be written is given up without a word: it only saves time."""
        if self.unusable:
            return
        fresh = list(dict.fromkeys(passed))
        kept = fresh + [one for one in self.clean if one not in set(fresh)]
        temporary = self.folder / f"{FILE}.{secrets.token_hex(6)}.tmp"
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            with os.fdopen(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644), "w",
                           encoding="utf-8") as handle:
                json.dump({"format": FORMAT, "clean": kept[:KEPT]}, handle)
            temporary.replace(self.path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink(missing_ok=True)


def rehearse(rehearsals: list[budget.Rehearsal], config_file: Path | None, memo: Rehearsed | None,
             **options: Any) -> tuple[list[budget.Verdict], int]:
    """`budget.rehearse`, but a page `memo` holds rendered within budget before is not rendered again: its
    verdict is that it passes. Records the pages that pass. Returns the verdicts in order and how many pages
    were skipped."""
    renderer = renderer_digest(config_file) if memo is not None else None
    if memo is None or renderer is None:
        return budget.rehearse(rehearsals, config_file, **options), 0
    digests = [page_digest(renderer, one.markdown) for one in rehearsals]
    todo = [index for index, digest in enumerate(digests) if digest not in memo]
    rendered = budget.rehearse([rehearsals[index] for index in todo], config_file, **options) if todo else []
    verdicts: list[budget.Verdict] = [budget.Verdict(one.key, True) for one in rehearsals]
    for index, verdict in zip(todo, rendered, strict=True):
        verdicts[index] = verdict
    memo.record(digest for digest, verdict in zip(digests, verdicts, strict=True) if verdict.ok)
    return verdicts, len(rehearsals) - len(todo)
