"""What a draft entry still lacks, in the order to do it: prose still marked TODO, then the
YAML's TODO comments (placeholders to confirm, a pin to check), then TODO lines of snippets.
(`errorkb verify ID` adds the checks that do not pass yet, from its own run.)

A TODO is plain text that loads: the stub renders and runs at once, and this list is what
stands between it and a finished entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from errorkb.core.load import LoadedEntry, Loc
from errorkb.core.project import Project

MARK = re.compile(r"\bTODO\b")
COMMENT = re.compile(r"^[ \t]*#[ \t]*TODO\b")
MAX_LINE = 160


@dataclass(frozen=True, order=True)
class Missing:
    order: int  # 1 prose, 2 YAML comments, 3 snippets
    rank: int  # within an order: the field's or the snippet's place in the entry (before, after, guards)
    where: str  # path:line
    what: str


def prose_fields(one: LoadedEntry) -> list[tuple[Loc, str]]:
    """(location, text) of every prose string of the entry."""
    entry = one.entry
    found: list[tuple[Loc, str]] = [(("title",), entry.title), (("meaning",), entry.meaning),
                                    (("trigger",), entry.trigger)]
    found += [(("situations", i), text) for i, text in enumerate(entry.situations)]
    for i, solution in enumerate(entry.solutions):
        found.append((("solutions", i, "title"), solution.title))
        if solution.body:
            found.append((("solutions", i, "body"), solution.body))
    found += [(("prevention", i), text) for i, text in enumerate(entry.prevention)]
    for i, guard in enumerate(entry.guards):
        found.append((("guards", i, "title"), guard.title))
        if guard.description:
            found.append((("guards", i, "description"), guard.description))
    if entry.notes:
        found.append((("notes",), entry.notes))
    return found


def _name(loc: Loc) -> str:
    return ".".join(str(part) if isinstance(part, str) else f"[{part}]" for part in loc).replace(".[", "[")


def unfinished(one: LoadedEntry, project: Project) -> list[Missing]:
    where = project.rel(one.path)
    missing = [Missing(1, one.positions.of_value(loc)[0], f"{where}:{one.positions.of_value(loc)[0]}",
                       f"{_name(loc)} is still TODO") for loc, text in prose_fields(one) if MARK.search(text)]
    try:
        lines = one.path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    missing += [Missing(2, number, f"{where}:{number}", line.strip()[:MAX_LINE])
                for number, line in enumerate(lines, 1) if COMMENT.match(line)]
    for rank, (_, file) in enumerate(one.entry.snippet_files()):
        path = project.snippet_path(one.entry.id, file)
        try:
            code = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            continue
        missing += [Missing(3, rank * 100_000 + number, f"{project.rel(path)}:{number}", line.strip()[:MAX_LINE])
                    for number, line in enumerate(code, 1) if MARK.search(line)]
    return sorted(missing)
