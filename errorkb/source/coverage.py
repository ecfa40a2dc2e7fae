"""Which raise sites have an entry, and which are knowingly exempt.

Stages:
1. `followed`     every raise site of each file the profile follows (`library.follow`), at the
                  pinned release, by AST, each with the entries that document it (same file,
                  release and line; implicit errors are listed apart).
2. `pinned_elsewhere`  the raise sites that entries pin in any other file or release (generation
                  code, model code, older releases): reported as documented, with the file's total
                  number of sites for scale; these files are not required to be complete.
3. `exemption_problems`  in a followed file, a site with neither entry nor exemption is a
                  problem; so is an exemption for a site that now has an entry, or that no longer
                  exists — the exemption list checks itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from errorkb.core.entry import Entry
from errorkb.core.load import LoadedEntry
from errorkb.core.problems import Problem
from errorkb.core.project import Project
from errorkb.source.raise_sites import RaiseSite, raise_sites
from errorkb.source.upstream import missing_release_hint, read_source, source_file


@dataclass(frozen=True)
class Row:
    site: RaiseSite
    entries: tuple[str, ...]
    exemption: str | None


@dataclass(frozen=True)
class FileCoverage:
    path: str
    release: str
    followed: bool  # every site must be documented or exempt
    rows: list[Row]  # followed: every raise site; otherwise only the documented ones
    implicit: list[str]  # entries for errors with no raise statement in this file
    sites: int | None  # raise sites in the file (None: its source is not here)

    @property
    def documented(self) -> int:
        return sum(1 for row in self.rows if row.entries)


@dataclass(frozen=True)
class Coverage:
    files: list[FileCoverage]
    problems: list[Problem]

    @property
    def followed(self) -> list[FileCoverage]:
        return [one for one in self.files if one.followed]


def coverage(loaded: list[LoadedEntry], project: Project) -> Coverage:
    entries = [one.entry for one in loaded]
    files: list[FileCoverage] = []
    problems: list[Problem] = []
    release = project.library.release
    for path in project.library.follow:
        found = _file_coverage(project, entries, path, release, followed=True)
        if found is None:
            problems.append(Problem("pyproject.toml", 1, 1, missing_release_hint(project.library, release)))
            continue
        files.append(found)
        exempt = {e.line: e.reason for e in project.coverage.exempt if (e.path or project.library.follow[0]) == path}
        problems += exemption_problems(found, exempt, project)
    followed = {(path, release) for path in project.library.follow}
    # A runtime's raise site (`source.runtime`) is no site of the library's files: left out.
    others = sorted({(e.source.path, e.source.release) for e in entries
                     if e.source.release and not e.source.runtime} - followed)
    for path, other_release in others:
        found = _file_coverage(project, entries, path, other_release or release, followed=False)
        if found is not None:
            files.append(found)
    return Coverage(files, problems)


def _file_coverage(project: Project, entries: list[Entry], path: str, release: str,
                   followed: bool) -> FileCoverage | None:
    # A removed name or a changed signature has no raise site: its pin is the replacement's definition.
    pinned = [entry for entry in entries if entry.source.path == path and entry.source.release == release
              and entry.kind == "raise" and not entry.source.runtime]
    found = source_file(project, release, path)
    text = read_source(found) if found else None
    exempt = {e.line: e.reason for e in project.coverage.exempt if (e.path or project.library.follow[0]) == path} \
        if followed else {}
    try:
        sites = raise_sites(text) if text is not None else None
    except (SyntaxError, ValueError, RecursionError):
        sites = None
    if sites is None:
        if followed:
            return None
        rows = []
    else:
        by_line: dict[int, list[str]] = {}
        for entry in pinned:
            if not entry.source.implicit:
                by_line.setdefault(entry.source.line, []).append(entry.id)
        rows = [Row(site, tuple(sorted(by_line.get(site.line, []))), exempt.get(site.line)) for site in sites]
        if not followed:
            rows = [row for row in rows if row.entries]
    implicit = sorted(entry.id for entry in pinned if entry.source.implicit)
    return FileCoverage(path, release, followed, rows, implicit, len(sites) if sites is not None else None)


def exemption_problems(table: FileCoverage, exempt: dict[int, str], project: Project) -> list[Problem]:
    where = project.rel(project.root / "pyproject.toml")
    problems = []
    lines = {row.site.line for row in table.rows}
    for row in table.rows:
        site = f"{row.site.function} line {row.site.line} ({row.site.exception})"
        if not row.entries and row.exemption is None:
            problems.append(Problem(where, 1, 1, f"raise site {site} of {table.path} has no entry; write one, or "
                                                 "exempt it in [tool.errorkb.coverage] exempt with a reason"))
        if row.entries and row.exemption is not None:
            problems.append(Problem(where, 1, 1, f"exemption for line {row.site.line} is obsolete: "
                                                 f"{', '.join(row.entries)} documents it; remove the exemption"))
    for line in sorted(set(exempt) - lines):
        problems.append(Problem(where, 1, 1, f"exemption for line {line} names no raise site of {table.path}; "
                                             "remove it or fix the line"))
    return problems
