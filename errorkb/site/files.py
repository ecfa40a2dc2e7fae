"""Everything the knowledge base adds to a site, as (path, content) pairs.

One function decides the generated files, and two front ends place them: the MkDocs plugin
hands them to MkDocs as virtual files, `errorkb render --out DIR` writes them to disk for
any other static-site engine. So both always publish the same pages, API and assets.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from errorkb.core.entry import Entry
from errorkb.core.load import LoadedEntry, LoadResult
from errorkb.core.problems import Problem
from errorkb.core.project import Project
from errorkb.results.records import CheckRecord
from errorkb.results.report import Report, latest_results
from errorkb.site import budget, render

# Every file the site generates besides entry pages, entry JSON and assets, and the ids they reserve.
from errorkb.site.names import GENERATED as GENERATED
from errorkb.site.names import reserved_ids as reserved_ids

if TYPE_CHECKING:
    from errorkb.core.project import LibraryProfile
    from errorkb.results.matrix import MatrixFile

ASSETS = Path(__file__).parent / "assets"
# Served with every site: the lookup matcher, its page glue, and the badge styles.
ASSET_FILES = {"assets/errorkb/lookup.js": "lookup.js", "assets/errorkb/errorkb.js": "errorkb.js",
               "assets/errorkb/errorkb.css": "errorkb.css"}
SCRIPTS = ["assets/errorkb/lookup.js", "assets/errorkb/errorkb.js"]
STYLES = ["assets/errorkb/errorkb.css"]


@dataclass(frozen=True)
class SiteFile:
    path: str  # docs-relative, forward slashes
    content: str
    source: str | None = None  # the author's file it comes from (project-relative), for edit links
    page: bool = False  # a Markdown page (as opposed to JSON or an asset)


def site_files(project: Project, loaded: LoadResult, reports: list[Report], *,
               edit_url: Callable[[str], str | None] | None = None) -> tuple[list[render.EntryPage], list[SiteFile]]:
    """The entry pages' models and every file to publish. `edit_url(project_relative_path)`
    gives the URL that edits an entry's YAML, or None."""
    pages = render.build_pages(project, loaded.entries, latest_results(reports))
    place_matrix(read_matrix(project), pages)
    files: list[SiteFile] = []
    for page in pages:
        url = edit_url(page.yaml_path) if edit_url else None
        files.append(SiteFile(page.url, render.render_entry(page, edit_url=url), page.yaml_path, page=True))
        files.append(SiteFile(render.api_path(page.entry), json_text(render.entry_document(page))))
    files += listing_files(project, pages, reports)
    files.append(SiteFile(render.COVERAGE, coverage_page(project, loaded, pages), page=True))
    return pages, files + constant_files()


_matrix_read: tuple[tuple[str, str, str], MatrixFile | None] | None = None


def read_matrix(project: Project) -> MatrixFile | None:
    """`results.matrix.read_matrix`, parsed once while the file holds the same bytes: `errorkb check` read it for
    the pages and again for the diagnosis index (1.6 s each at 120 entries). Keyed by its bytes' digest, never
    by its times (two writes within a timer tick, the inode reused, read as one); kept only where the bytes
    were the same before and after the parse. Its readers only read it."""
    import hashlib
    import os

    from errorkb.results import matrix, store

    global _matrix_read
    path = matrix.matrix_path(project)

    def digest() -> str | None:
        try:
            text = store.read_regular(path)
        except store.Unreadable:
            return None
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest() if text is not None else None

    seen = digest()
    key = (os.path.abspath(path), project.library.dist, seen or "")
    if seen is not None and _matrix_read is not None and _matrix_read[0] == key:
        return _matrix_read[1]
    data = matrix.read_matrix(project)  # none, unreadable or another package's: never kept
    _matrix_read = (key, data) if seen is not None and data is not None and digest() == seen else None
    return data


def listing_files(project: Project, pages: list[render.EntryPage], reports: list[Report],
                  rows: render.Rows | None = None) -> list[SiteFile]:
    """The pages and files that list every entry (but the coverage page, whose inputs differ).
    `rows`: each entry's rows as the last build rendered them (`render.Rows`; `mkdocs serve`)."""
    return [
        SiteFile(render.ERRORS_INDEX, render.render_index(pages, rows), page=True),
        SiteFile(render.BY_EXCEPTION, render.render_by_exception(pages, rows), page=True),
        SiteFile(render.BY_API, render.render_by_api(pages, rows), page=True),
        SiteFile(render.VERIFICATION, render.render_verification(pages, project.library, reports, rows), page=True),
        SiteFile(render.TAGS, render.render_tags(pages, rows), page=True),
        SiteFile(render.MIGRATION, render.render_migration(pages, project.library), page=True),
        SiteFile(render.INDEX_JSON, index_json(project.library, pages, rows)),
    ]


def index_json(library: LibraryProfile, pages: list[render.EntryPage], rows: render.Rows | None = None) -> str:
    """`json_text(render.index_document(...))`, the lookup's index; with `rows`, each entry's part
    of the text is kept with its row (`render.Rows`) and dumped again only when that row is
    made again: at 1,000 entries the whole dump was 0.15-0.3 s of every rebuild that changed a row.
    An entry sits at depth 2 of the document (`json_text` indents by one space), and its JSON holds
    no new line of its own (a string's is written `\\n`), so its text there is its own dump, each
    line indented by two spaces."""
    document = render.index_document(pages, library, rows)
    entries = document["entries"]
    if rows is None or not isinstance(entries, list) or not entries or list(document)[-1] != "entries":
        return json_text(document)
    head, tail = json_text({**document, "entries": []}), '"entries": []\n}\n'
    if not head.endswith(tail):  # pragma: no cover - not what json.dumps writes for the last key, empty
        return json_text(document)
    items = [rows.get(page, ("index.json",), functools.partial(_nested, entry))
             for page, entry in zip(pages, entries, strict=True)]
    return head[:-len(tail)] + '"entries": [\n' + ",\n".join(items) + "\n ]\n}\n"


def _nested(entry: dict[str, object]) -> str:
    """An entry's text in the index's `entries` (`index_json`): its own dump, indented by two spaces."""
    return "  " + json_text(entry)[:-1].replace("\n", "\n  ")


def constant_files() -> list[SiteFile]:
    """What every site publishes whatever its entries: the schemas and the assets."""
    return [SiteFile(render.SCHEMA_JSON, json_text(Entry.model_json_schema())),
            SiteFile(render.CHECK_SCHEMA_JSON, json_text(CheckRecord.model_json_schema()))] + \
        [SiteFile(path, (ASSETS / name).read_text(encoding="utf-8")) for path, name in ASSET_FILES.items()]


# -- an entry that does not load: its problems, at its own address --------------------------------

PROBLEM_LINES_READ = 1 << 20  # bytes of a broken entry read to quote its lines (the loader's limit is 512 KB)
PROBLEM_CONTEXT = 2  # lines quoted before and after each problem's line
PROBLEM_LINE_CHARS = 300  # characters of one quoted line
PROBLEMS_SHOWN = 50
_PAGE_STEM = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}$")


def problem_pages(project: Project, loaded: LoadResult) -> list[SiteFile]:
    """A page at the address of every entry file that exists but did not load, listing its
    problems (`path:line:col: what`) with the YAML lines around each, so the author previewing
    with `mkdocs serve` sees why instead of a 404; the next save that fixes the file brings the
    entry's own page back."""
    by_path: dict[str, list[Problem]] = {}
    for problem in loaded.problems:
        by_path.setdefault(problem.path, []).append(problem)
    stems = {PurePosixPath(where).stem for where in by_path}  # no file of another stem has a problem
    if not stems:
        return []
    loaded_paths = {one.path.resolve() for one in loaded.entries if one.path.stem in stems}
    pages = []
    inside = project.entries.resolve()
    for path in sorted(project.entries.glob("*/*.yml")) if project.entries.is_dir() else []:
        if path.stem not in stems:
            continue
        where = project.rel(path)
        if path.is_symlink() or not path.is_file():  # a link is never resolved here: it may loop
            continue  # its lines would be another file's: nothing outside the entries folder is ever quoted
        if path.resolve() in loaded_paths or where not in by_path or not _PAGE_STEM.match(path.stem):
            continue
        if not path.resolve().is_relative_to(inside):
            continue
        page = f"errors/{path.parent.name}/{path.stem}.md"
        pages.append(SiteFile(page, problems_page(project, where, by_path[where]), where, page=True))
    return pages


def expected_reports(project: Project, loaded: LoadResult, reports: list[Report]) -> tuple[list[Report], list[str]]:
    """The reports less every record no page of this knowledge base speaks for, and a message for each kind
    left out: records of entries it does not have, and of checks its loaded entries do not have."""
    from errorkb.plugs import runtime_for
    from errorkb.results.records import check_id
    from errorkb.results.report import without_unknown_entries, without_unplanned_checks

    devices = runtime_for(project.library.runtime).devices
    planned = {one.entry.id: {check_id(one.entry.id, role, target, device) for role, _ in one.entry.snippets()
                              for target in project.library.available_targets for device in devices}
               for one in loaded.entries}
    reports, unknown = without_unknown_entries(reports, loaded.ids(), project.reports)
    reports, unplanned = without_unplanned_checks(reports, planned, project.reports)
    return reports, [*unknown, *unplanned]


def problems_page(project: Project, where: str, problems: list[Problem]) -> str:
    """The Markdown of a page listing `problems` of the file `where` (project-relative), each with
    the file's lines around it: the page shown at an entry's address instead of the entry."""
    return render.render_problems(where, sorted(problems)[:PROBLEMS_SHOWN], _quoted_lines(project.root / where))


def bare_problems_page(problem: Problem) -> str:
    """The page of a problem, without the author's lines: for a page whose lines are what fails to render."""
    return render.render_problems(problem.path, [problem], {})


def entry_parts(project: Project, one: LoadedEntry, page: render.EntryPage) -> tuple[budget.Part, ...]:
    """What an entry's page is made of, each part placed where its author wrote it (for `budget`)."""
    snippets = {role: (page.snippet_paths[role], snippet.full) for role, snippet in page.snippets.items()}
    return budget.parts_of(one.entry, one.positions, project.rel(one.path), snippets)


def _quoted_lines(path: Path) -> dict[int, str]:
    """The file's lines by number, each cut to `PROBLEM_LINE_CHARS`, from its first megabyte only."""
    try:
        with path.open("rb") as handle:
            data = handle.read(PROBLEM_LINES_READ)
    except OSError:
        return {}
    lines = data.decode("utf-8", errors="replace").splitlines()
    return {number: line[:PROBLEM_LINE_CHARS] for number, line in enumerate(lines, 1)}


def coverage_page(project: Project, loaded: LoadResult, pages: list[render.EntryPage]) -> str:
    """The raise sites of the followed files and their entries, as `errorkb coverage` prints them."""
    from errorkb.source.coverage import coverage

    return render.render_coverage(coverage(loaded.entries, project), pages)


def version_ranges(project: Project, pages: list[render.EntryPage]) -> dict[str, render.VersionRange]:
    """Per entry, the releases where it raises, read from the version matrix file
    (`errorkb matrix`) when there is one. The site never runs the matrix itself."""
    from errorkb.results import matrix

    return ranges_of(matrix.read_matrix(project), pages)


def place_matrix(data: MatrixFile | None, pages: list[render.EntryPage]) -> None:
    """Each page's releases (`versions`) and states at each release (`states`) from the version
    matrix file `data` (None: there is none)."""
    from errorkb.results import matrix

    ranges = ranges_of(data, pages)
    for page in pages:
        page.versions = ranges.get(page.entry.id)
        page.states = tuple(matrix.release_states(page.entry.id, data) or ()) if data else ()


def ranges_of(data: MatrixFile | None, pages: list[render.EntryPage]) -> dict[str, render.VersionRange]:
    """`version_ranges` from a matrix file already read."""
    from errorkb.results import matrix

    if not data:
        return {}
    order = data.ordered_releases()
    newest = next((release for release in reversed(order) if (s := data.status(release)) and s.ran), None)
    ranges = {}
    for page in pages:
        summary = matrix.summarize(page.entry.id, data, page.inputs)
        if summary is None:
            continue
        disagrees = tuple(summary.disagreements(page.entry))
        ranges[page.entry.id] = render.VersionRange(
            matrix.describe_spans(summary.raises), matrix.describe_spans(summary.after_passes), summary.fixed_in,
            newest, summary.tested, tuple(summary.failed_setup), matrix.describe_stale(summary),
            tuple(matrix.line_spans(summary.lines, order)), data.updated[:10] or None, summary.fixed_reason,
            summary.not_run, tuple(summary.lines.items()), summary.worked_until,
            tuple((index, matrix.describe_spans(spans)) for index, spans in sorted(summary.wordings.items())),
            disagrees, tuple(summary.stale))
    return ranges


def edit_url(repo_url: str | None, edit_uri: str | None, docs_dir: Path, project: Project, path: str,
             resolve: Callable[[Path], Path] = Path.resolve) -> str | None:
    """`repo_url` + `edit_uri` + the entry YAML's path inside docs/ (None outside docs/ or without a
    repository): the same link from the plugin and from `errorkb render --out`, which reads mkdocs.yml.
    `resolve`: the caller's `core.load.Resolved`, when it asks for many."""
    if not repo_url or not edit_uri:
        return None
    source = resolve(project.root / path)
    docs = resolve(docs_dir)
    if not source.is_relative_to(docs):
        return None
    return str(repo_url).rstrip("/") + "/" + str(edit_uri).strip("/") + "/" + source.relative_to(docs).as_posix()


def json_text(document: dict[str, object]) -> str:
    """JSON whose text holds no `<`, `>` or `&` (written as \\u003c, \\u003e, \\u0026: the same data):
    entries' text stays inert even where a page or a careless server puts the JSON into HTML."""
    text = json.dumps(document, indent=1, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"


# -- facts a hand-written page may quote, so its words stay true ------------------------------------

_PLACEHOLDER = re.compile(r"\{\{\s*errorkb\.([a-z_]+)\s*\}\}")


def facts(project: Project, pages: list[render.EntryPage]) -> dict[str, str]:
    """What a hand-written page (the home page) may say about the knowledge base, as
    `{{ errorkb.NAME }}`: the library's name, how many entries, how many removed or renamed names,
    and the releases the version matrix measured ("—" without a matrix); how many entries stand verified
    (`render.verified_count`, the list of errors' figure), so the page claims no verified fix it has not."""
    releases = next((tuple(one.release for one in page.states) for page in pages if page.states), ())
    return {"library": project.library.name, "entries": str(len(pages)), "verified": str(render.verified_count(pages)),
            "migrations": str(len(render.migration_rows(pages))),
            "releases": str(len(releases)), "first_release": releases[0] if releases else "—",
            "newest_release": releases[-1] if releases else "—"}


def fill(markdown: str, known: dict[str, str], where: str) -> tuple[str, list[str]]:
    """`markdown` with every `{{ errorkb.NAME }}` replaced by its fact, and the problems: a name
    that is no fact stays as written and is reported with the page it is on."""
    problems: list[str] = []

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in known:
            return known[name]
        problems.append(f"{where}: unknown placeholder {match.group()}; known: {', '.join(sorted(known))}")
        return match.group()

    return _PLACEHOLDER.sub(one, markdown), problems
