"""Entries → checks. A check is one snippet of one entry, on one target and one device.

The snippet's bytes are read here, once: the check runs them, the report hashes them, the cache
keys on them. A file edited while a run is under way cannot make the report claim a hash of
bytes that never ran.
"""

from __future__ import annotations

import ast
import functools
import hashlib
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from errorkb.core.entry import Entry, GuardExpectation
from errorkb.core.lint import Finding, helpers, importable, local_modules, unallowed
from errorkb.core.load import LoadedEntry
from errorkb.core.project import LibraryProfile, Project
from errorkb.core.snippets import Role, Snippet, read_snippet
from errorkb.verify.targets import BUNDLED


@dataclass(frozen=True)
class Claim:
    """Another entry's own error: its exception, its message and the function that raises it. A wording
    of one entry verifies only that entry: an error another entry claims as its own does not count for
    an `also_seen_as` of this one (a wide wording must not let a sibling's error verify it)."""

    entry: str
    exception: str
    message: str
    function: str | None  # for a raise of the library's own; None for a removed name or a signature


@dataclass(frozen=True)
class Check:
    entry: Entry
    snippet: Snippet
    target: str
    device: str
    module: str  # import path of the module that defines source.function
    release: str | None = None  # the library release the check runs against (None: whatever is installed)
    others: tuple[Claim, ...] = ()  # the other entries' own errors (see `Claim`)
    lint: SnippetLint | None = field(default=None, compare=False)  # finds `unallowed`, when the check is judged

    @functools.cached_property
    def unallowed(self) -> tuple[str, ...]:
        """'file:line: primitive (code)' the snippet or a module beside it uses unallowed. Read by the
        judge of a check that ran: one answered from the cache was judged under a key that covers the
        snippet folder, the entry and the lint's own code, so a cached run lints nothing."""
        return self.lint.findings() if self.lint is not None else ()

    @property
    def role(self) -> Role:
        return self.snippet.role

    @property
    def id(self) -> str:
        return f"{self.entry.id}::{self.role}[{self.target}-{self.device}]"

    @property
    def kind(self) -> str:
        return self.role.kind

    @property
    def guard(self) -> GuardExpectation | None:
        return self.entry.guard(self.role)


class EntryLint:
    """What the allow-list finds in the modules beside an entry's snippets, found once, on first use."""

    def __init__(self, project: Project, entry: Entry, folder: Path, beside: AbstractSet[str]):
        self.project, self.entry, self.folder, self.beside = project, entry, folder, beside

    @functools.cached_property
    def in_helpers(self) -> list[str]:
        shared = [allowed.primitive for allowed in self.entry.allow]
        files = [file for _, file in self.entry.snippet_files()]
        return [_said(self.project, path, finding) for path in helpers(self.folder, files)
                for finding in unallowed(_text(path), self.entry.exception, shared, self.beside)]


@dataclass(frozen=True)
class SnippetLint:
    """What the allow-list finds in one snippet (the bytes the check runs) and beside it (`EntryLint`)."""

    entry: EntryLint
    path: Path
    text: str
    allowed: tuple[str, ...]

    def findings(self) -> tuple[str, ...]:
        own = [_said(self.entry.project, self.path, finding)
               for finding in unallowed(self.text, self.entry.entry.exception, self.allowed, self.entry.beside)]
        return tuple(own + self.entry.in_helpers)


class UnreadableSnippet(Exception):
    """A snippet file vanished or became unreadable after the entries were loaded."""


def source_module(entry: Entry, library: LibraryProfile) -> str:
    """`source.module`, or the module of `source.path` by the profile's source root."""
    return entry.source.module or library.module_of(entry.source.path) or library.name


def check_release(entry: Entry, target: str, library: LibraryProfile, upstream: str | None) -> str | None:
    """The release a check of `entry` runs against: the bundled implementation reproduces the
    profile's release; upstream runs at `upstream` when given (the version matrix: whatever is
    installed), else at the entry's pinned release."""
    if target == BUNDLED:
        return library.release
    pinned = None if entry.source.runtime else entry.source.release  # a runtime source pins the runtime's
    return upstream or pinned or library.release


def plan(loaded: list[LoadedEntry], project: Project, targets: list[str], devices: list[str],
         ids: list[str] | None = None, upstream: str | None = None, kinds: list[str] | None = None) -> list[Check]:
    """Every check to run, in a stable order (entry, snippet, target, device); `kinds` keeps only
    the snippets of those kinds (before, after, guard)."""
    wanted = set(ids) if ids else None
    claims = [claim_of(one.entry) for one in loaded]
    modules = importable(project)
    checks = []
    for one in sorted(loaded, key=lambda item: item.entry.id):
        entry = one.entry
        if wanted is not None and entry.id not in wanted:
            continue
        module = source_module(entry, project.library)
        folder = project.snippets / entry.id
        lint = EntryLint(project, entry, folder, modules | local_modules(folder))
        for role, file in entry.snippet_files():
            if kinds and role.kind not in kinds:
                continue
            path = project.snippet_path(entry.id, file)
            try:
                snippet = read_snippet(path, role, file)
            except OSError as error:
                raise UnreadableSnippet(f"{project.rel(path)}: {error.strerror or error}") from None
            allowed = tuple(allowance.primitive for allowance in entry.allowances(role))
            flagged = SnippetLint(lint, path, snippet.data.decode("utf-8", errors="replace"), allowed)
            for target in targets:
                for device in devices:
                    release = check_release(entry, target, project.library, upstream)
                    others = tuple(claim for claim in claims if claim.entry != entry.id)
                    checks.append(Check(entry, snippet, target, device, module, release, others, flagged))
    return checks


def _text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _said(project: Project, path: Path, finding: Finding) -> str:
    return f"{project.rel(path)}:{finding.line}: {finding.primitive} ({finding.code})"


def claim_of(entry: Entry) -> Claim:
    return Claim(entry.id, entry.exception, entry.message, entry.source.function if entry.kind == "raise" else None)


def parse_shard(text: str) -> tuple[int, int]:
    """`k/n` → (k, n) with 1 ≤ k ≤ n; ValueError with a readable message otherwise."""
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard takes k/n, e.g. 1/4; got {text!r}") from None
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text}: k must be between 1 and n")
    return k, n


def shard_of(check_id: str, n: int) -> int:
    """1-based shard of a check: a stable hash of its id, the same on every machine and run."""
    return int.from_bytes(hashlib.sha256(check_id.encode()).digest()[:8], "big") % n + 1


def select_shard(checks: list[Check], k: int, n: int) -> list[Check]:
    return [check for check in checks if shard_of(check.id, n) == k]


def library_imports(checks: list[Check], library: str) -> list[str]:
    """Modules and names of `library` the snippets import, for a warm worker to preload.

    `import lib.x` → `lib.x`; `from lib.x import Y` → `lib.x:Y` (an attribute, so a lazily
    loading package resolves it once, up front).
    """
    names: set[str] = set()
    for data in {check.snippet.data for check in checks}:
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names if a.name.split(".")[0] == library)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] == library:
                names.update(f"{node.module}:{a.name}" for a in node.names if a.name != "*")
    return sorted(names)
