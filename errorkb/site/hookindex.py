"""The index the exception hook ships with: what `errorkb.hook` needs to recognise an error and
point at its entry, derived from the entries alone.

Only entry text goes in (no verification report, no version matrix): CI regenerates reports on
every run, and an index that changed with them would be stale after each. So the file changes
exactly when an entry changes, `errorkb hook index --check` (and the test suite) says when it
is stale, and `errorkb hook index` rewrites it. Wordings too generic to identify an error are
left out here, so the hook needs no rule of its own to skip them. An error the runtime raises under the library
(`source.implicit`) carries the frame it must come from: its wording is the runtime's, and other
code raises it too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from errorkb.core.entry import Entry
from errorkb.core.message import GENERIC_WORDINGS, MessageTemplate, TemplateSyntaxError, fixed_text, is_degenerate
from errorkb.core.project import Project
from errorkb.plugs import runtime_for
from errorkb.site.lookup import installed_path, wordings_of
from errorkb.site.render import site_url

SCHEMA = 1
HOOK_INDEX = Path(__file__).resolve().parent.parent / "hook" / "index.json"


def one_line(text: str) -> str:
    """Prose as one line of a terminal: whitespace runs, newlines included, become one space."""
    return " ".join(text.split())


def fix_of(entry: Entry) -> str:
    """The fix in one line: the replacement of a removed API, else the first solution's title."""
    releases = entry.releases
    if releases and releases.replacement:
        since = f" (since {releases.replacement_since})" if releases.replacement_since else ""
        return one_line(f"use {releases.replacement}{since}")
    return one_line(entry.solutions[0].title)


def _usable(message: str, generic: tuple[str, ...]) -> MessageTemplate | None:
    try:
        template = MessageTemplate.parse(message.strip())
    except TemplateSyntaxError:
        return None
    return None if is_degenerate(template, generic) else template


def hook_index(project: Project, entries: Iterable[Entry]) -> dict[str, object]:
    """The hook's index document: the library, the site's address and, per entry, its usable
    wordings (most specific first), release facts, fix line and page path."""
    generic = (*GENERIC_WORDINGS, *runtime_for(project.library.runtime).generic_messages)
    items = []
    for entry in sorted(entries, key=lambda one: one.id):
        wordings = []
        for wording in wordings_of(entry):
            template = _usable(wording.message, generic)
            if template is not None:
                wordings.append({"message": wording.message, "exception": wording.exception,
                                 "fixed": fixed_text(template).total})
        if not wordings:
            continue
        releases = entry.releases
        item: dict[str, object] = {
            "id": entry.id, "title": one_line(entry.title), "fix": fix_of(entry), "url": site_url(entry),
            "wordings": sorted(wordings, key=lambda w: -int(str(w["fixed"]))),
            "raises": releases.raises if releases else None, "pinned": entry.source.release}
        file = installed_path(project.library, entry.source.path)
        if entry.source.implicit and file:  # the runtime's wording alone would claim others' errors
            item["frame"] = {"file": file, "function": entry.source.function.rsplit(".", 1)[-1]}
        items.append(item)
    library = project.library
    return {"schema": SCHEMA, "library": {"name": library.name, "distribution": library.dist},
            "site": project.site_url, "entries": items}


def index_text(document: dict[str, object]) -> str:
    """The file's text: stable order and layout, so a regenerated index diffs small."""
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def stale(project: Project, entries: Iterable[Entry], path: Path = HOOK_INDEX) -> bool:
    """Whether the index at `path` differs from what the entries give now."""
    try:
        current = path.read_text(encoding="utf-8")
    except OSError:
        return True
    return current != index_text(hook_index(project, entries))
