"""Which raise sites of the pinned module have an entry, and which are knowingly exempt.

Stages:
1. `sites_of`     every raise site of the pinned module, by AST.
2. `coverage`     each site with the entries that document it (same line, not implicit).
3. `exemption_problems`  a site with neither entry nor exemption is a problem; so is an
                  exemption for a site that now has an entry, or that no longer exists —
                  the exemption list checks itself.
"""

from __future__ import annotations

from dataclasses import dataclass

from errorkb.core.load import LoadedEntry
from errorkb.core.problems import Problem
from errorkb.core.project import Project
from errorkb.source.raise_sites import RaiseSite, raise_sites
from errorkb.source.upstream import missing_release_hint, source_file


@dataclass(frozen=True)
class Row:
    site: RaiseSite
    entries: tuple[str, ...]
    exemption: str | None


@dataclass(frozen=True)
class Coverage:
    path: str
    release: str
    rows: list[Row]
    implicit: list[str]  # entries for errors with no raise statement
    problems: list[Problem]

    @property
    def documented(self) -> int:
        return sum(1 for row in self.rows if row.entries)


def coverage(loaded: list[LoadedEntry], project: Project) -> Coverage:
    settings = project.coverage
    path = source_file(project, settings.package, settings.release, settings.path)
    if path is None:
        problem = Problem("pyproject.toml", 1, 1, missing_release_hint(settings.package, settings.release))
        return Coverage(settings.path, settings.release, [], [], [problem])
    sites = raise_sites(path.read_text(encoding="utf-8"))
    pinned = [one.entry for one in loaded
              if one.entry.source.path == settings.path and one.entry.source.release == settings.release]
    by_line: dict[int, list[str]] = {}
    for entry in pinned:
        if not entry.source.implicit:
            by_line.setdefault(entry.source.line, []).append(entry.id)
    exempt = {exemption.line: exemption.reason for exemption in settings.exempt}
    rows = [Row(site, tuple(sorted(by_line.get(site.line, []))), exempt.get(site.line)) for site in sites]
    implicit = sorted(entry.id for entry in pinned if entry.source.implicit)
    return Coverage(settings.path, settings.release, rows, implicit, exemption_problems(rows, exempt, project))


def exemption_problems(rows: list[Row], exempt: dict[int, str], project: Project) -> list[Problem]:
    where = project.rel(project.root / "pyproject.toml")
    problems = []
    lines = {row.site.line for row in rows}
    for row in rows:
        site = f"{row.site.function} line {row.site.line} ({row.site.exception})"
        if not row.entries and row.exemption is None:
            problems.append(Problem(where, 1, 1, f"raise site {site} has no entry; write one, or exempt it "
                                                 "in [tool.errorkb.coverage] exempt with a reason"))
        if row.entries and row.exemption is not None:
            problems.append(Problem(where, 1, 1, f"exemption for line {row.site.line} is obsolete: "
                                                 f"{', '.join(row.entries)} documents it; remove the exemption"))
    for line in sorted(set(exempt) - lines):
        problems.append(Problem(where, 1, 1, f"exemption for line {line} names no raise site of the pinned "
                                             "module; remove it or fix the line"))
    return problems


def render_coverage(table: Coverage, titles: dict[str, str], urls: dict[str, str]) -> str:
    """The site's coverage page: the same table as `errorkb coverage`, with links to entries."""
    lines = [
        "---", "title: Coverage", "---", "", "# Coverage", "",
        f"Every `raise` statement of `{table.path}` in release {table.release}, read from the installed "
        "package by AST, and the entry that documents it. "
        f"**{table.documented} of {len(table.rows)}** raise sites are documented"
        + (f"; {len(table.implicit)} errors raised by Python or torch inside the module are documented too."
           if table.implicit else "."),
        "",
        "| Line | Function | Exception | Entry |",
        "|---:|---|---|---|",
    ]
    for row in table.rows:
        documented = ", ".join(f"[{_cell(titles.get(i, i))}]({urls[i]})" if i in urls else f"`{i}`"
                               for i in row.entries)
        status = documented or (f"exempt: {_cell(row.exemption)}" if row.exemption else "**not documented**")
        lines.append(f"| {row.site.line} | `{row.site.function}` | `{row.site.exception or 'raise'}` | {status} |")
    if table.implicit:
        lines += ["", "## Implicit errors", "",
                  "Raised by Python or torch inside a call of the module, with no `raise` of its own:", ""]
        lines += [f"- [{_cell(titles.get(i, i))}]({urls[i]})" if i in urls else f"- `{i}`" for i in table.implicit]
    if table.problems:
        lines += ["", "!!! failure \"Coverage problems\"", ""]
        lines += [f"    - {_cell(problem.message)}" for problem in table.problems]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")
