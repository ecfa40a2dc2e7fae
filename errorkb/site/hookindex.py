"""The index a knowledge base ships: what `errorkb lookup`, `errorkb show` and the hook read
outside any checkout, generated from the entries by `errorkb hook index` into the file the
profile names (`[tool.errorkb] index`), inside the knowledge base's own package, which it
registers under the `errorkb.indexes` entry point (a test fails while this one's is stale).
Nothing is ever written into the errorkb package of another installation.

It has the shape of the site's `api/errors/index.json` (`errorkb.lookup.build`), plus what `show`
prints. What goes in changes only when an entry (or a snippet's shown section) changes, or the
version matrix measures other raise lines: no verification report, which CI regenerates on every
run. `site` is the published site's address (`site_url`), so the links it prints work anywhere.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from errorkb.core.entry import Entry
from errorkb.core.load import LoadResult, entry_paths
from errorkb.core.message import GENERIC_WORDINGS
from errorkb.core.project import Project
from errorkb.core.snippets import AFTER, read_snippet
from errorkb.lookup import Index, read_index
from errorkb.lookup.build import entries_digest, index_document
from errorkb.lookup.lint import Case
from errorkb.plugs import runtime_for
from errorkb.site.render import site_url


class NoIndexFile(ValueError):
    """The profile names no index file, or one errorkb may not write; the message says what to do."""


def index_file(project: Project) -> Path:
    """The file `errorkb hook index` writes for `project`: `[tool.errorkb] index`. Refused when it is
    unset, or when it lies inside an installed errorkb package that is not this project's own
    checkout (one knowledge base's index must never replace another's). Its own checkout is the
    project whose folder holds the package itself, not one that holds it deeper down (an errorkb
    installed in the knowledge base's own virtual environment is another's)."""
    if project.index is None:
        raise NoIndexFile("[tool.errorkb] index is not set: name the file to write inside your knowledge base's "
                          "package (e.g. index = \"mykb_errorkb/index.json\") and register that package in "
                          "pyproject.toml under [project.entry-points.\"errorkb.indexes\"] (errorkb init sets both)")
    tool = installed_errorkb()
    target = project.index.resolve()
    if target.is_relative_to(tool) and tool.parent != project.root.resolve():
        raise NoIndexFile(f"[tool.errorkb] index = {project.index} lies inside the installed errorkb package "
                          f"({tool}); a knowledge base writes its index into its own package")
    return project.index


def installed_errorkb() -> Path:
    """The folder of the errorkb package this process imported."""
    return Path(__file__).resolve().parent.parent


def raise_lines(project: Project, entries: Iterable[Entry]) -> dict[str, dict[str, int]]:
    """Each entry's raise line per release, as the version matrix measured it (where it ran)."""
    from errorkb.results.matrix import summarize
    from errorkb.site.files import read_matrix  # parsed once while the file is the same

    data = read_matrix(project)
    lines: dict[str, dict[str, int]] = {}
    if data is None:
        return lines
    for entry in entries:
        summary = summarize(entry.id, data, None)
        if summary and summary.lines:
            lines[entry.id] = dict(summary.lines)
    return lines


def shown_fixes(project: Project, entries: Iterable[Entry]) -> dict[str, str]:
    """Each entry's after snippet, the section its page shows."""
    fixes = {}
    for entry in entries:
        path = project.snippets / entry.id / entry.after.file
        try:
            fixes[entry.id] = read_snippet(path, AFTER, entry.after.file).shown
        except (OSError, UnicodeDecodeError):
            continue
    return fixes


def entry_files(project: Project) -> list[Path]:
    """The entry files whose bytes say whether an index is current: those the loader reads (a
    FIFO named like an entry hung `errorkb lookup` when every `*.yml` was read)."""
    return entry_paths(project)


def hook_index(project: Project, entries: Iterable[Entry]) -> dict[str, object]:
    """The shipped index document for the project's entries."""
    entries = list(entries)
    runtime = runtime_for(project.library.runtime)
    generic = (*GENERIC_WORDINGS, *runtime.generic_messages)
    return index_document(project.library, entries, site_url, project.site_url, raise_lines(project, entries),
                          generic, shown_fixes(project, entries), digest=entries_digest(entry_files(project)),
                          runtime=runtime.packages)


def project_index(project: Project, entries: Iterable[Entry]) -> Index:
    """The index of the project's entries as `errorkb hook index` would write it, in memory."""
    return read_index(hook_index(project, entries), str(project.entries))


def diagnosis_cases(project: Project, loaded: LoadResult | None = None) -> list[Case]:
    """Every entry's verified before on the real library (the standing report's passing upstream
    before checks, CPU first) with its captured traceback: what `errorkb check` holds each
    entry's diagnosis to. Only records of checks the entries (`loaded`, default: the project's) have,
    as the pages show them (`files.expected_reports`): a report is another machine's file. Only checks of
    the entry and snippet folder as they are now (`evidence.is_stale`, the pages' rule): a stale pass raised
    what a snippet since edited raised, and is no verdict on this one's diagnosis."""
    from errorkb.core.load import load_project_entries
    from errorkb.results.keys import project_inputs
    from errorkb.results.report import latest_results, read_reports
    from errorkb.site.evidence import is_stale
    from errorkb.site.files import expected_reports

    loaded = loaded or load_project_entries(project)
    reports, _ = read_reports(project.reports, runtime_for(project.library.runtime).devices)
    reports, _ = expected_reports(project, loaded, reports)
    from errorkb.results.records import Code

    inputs = {one.entry.id: project_inputs(project, one.entry) for one in loaded.entries}
    cases: dict[str, Case] = {}
    differs: dict[str, Case] = {}  # a before that raised the error with another message: held to the header rule
    for record in sorted(latest_results(reports).values(), key=lambda r: (r.entry, r.device != "cpu")):
        info = record.exception
        if record.role != "before" or record.target != "upstream" or info is None or not info.traceback:
            continue
        if is_stale(record, {"before": inputs.get(record.entry, "")}):  # the inputs cover the snippet's bytes
            continue
        if record.outcome.value == "pass" and record.entry not in cases:
            cases[record.entry] = Case(record.entry, record.release, info.traceback)
        elif record.code is Code.MESSAGE_DIFFERS and record.entry not in differs:
            differs[record.entry] = Case(record.entry, record.release, info.traceback, passed=False)
    return [*cases.values(), *(case for entry, case in differs.items() if entry not in cases)]


def index_text(document: dict[str, object]) -> str:
    """The file's text: stable order and layout, so a regenerated index diffs small."""
    return json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def stale(project: Project, entries: Iterable[Entry], path: Path | None = None) -> bool:
    """Whether the index at `path` (default: the profile's index file) differs from what the entries give
    now; read as reports are (`store.read_regular`): a FIFO there blocked the check forever."""
    from errorkb.results import store

    path = path or index_file(project)
    try:
        current = store.read_regular(path)
    except store.Unreadable:
        return True
    return current != index_text(hook_index(project, entries))


def not_an_index(path: Path) -> str | None:
    """Why the file at `path` cannot be an index (a FIFO, a folder, not UTF-8, too large), None when it can."""
    from errorkb.results import store

    try:
        store.read_regular(path)
    except store.Unreadable as error:
        return str(error)
    return None


def write_index(path: Path, document: dict[str, object]) -> None:
    """Write the index atomically, under its folder's lock (a write cut short shipped half an index to
    every user's hook), replacing whatever is there, a FIFO included, never writing into it."""
    from errorkb.results import store

    with store.locked(path.parent):
        store.replace(path, index_text(document))
