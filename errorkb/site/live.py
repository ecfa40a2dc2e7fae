"""Live authoring: under `mkdocs serve`, a save re-makes what it changed and reuses the rest.

`mkdocs serve` rebuilds the whole site after every change, and the plugin used to load, render
and convert every entry each time (7-11 s at 98 entries, growing with the knowledge base). Two
memos, both plain objects kept by the plugin between the builds of one `mkdocs serve` (never
by `mkdocs build`), make a build cost what changed:

`Sources`, what the plugin generates (the work of `files.site_files` + `files.problem_pages`):

1. `entries`  each entry file is loaded again only when it changed (size, times, inode); the
              loader's checks across entries (ids, `related`, snippets) run on every build.
2. `reports`  the reports folder is read again only when one of its files changed. A report (or
              the version matrix) that does not read now but did at an earlier build keeps that
              last good read, and the build says so: a file being copied in or checked out (not
              written by errorkb, whose writes are atomic) is read half-written by a rebuild, and
              dropping it took every page's badges (or release ranges) away until the next save.
3. `files`    an entry's page model, page and JSON are made again only when one of its inputs
              changed (`entry_inputs`: its file, every file of its snippet folder, its records,
              the files of the entries its page names, both ways; then its releases from the
              version matrix and its edit link); the lists, the verification page and the
              lookup's index only when what they show of some entry changed (`render.listed`:
              not its prose, nor a snippet's code) or a report did, and then each entry's rows
              only when what they show of it changed (`render.Rows`; in the lookup's index, its
              JSON text too: `files.index_json`); the coverage page when an
              entry file or where an entry stands (`render.coverage_standing`) changed. The version
              matrix file is read again only when it changed.
              Everything else (schemas, assets) is made once.

`Pages`, what MkDocs makes of a generated page (`mkdocs serve` only; used by the plugin):

4. a page whose source is the one the last build read takes that build's Markdown and front
   matter (MkDocs parses every page's front matter as YAML on every build); a page whose
   Markdown is the one the last build converted, on a site whose configuration,
   theme overrides and hand-written pages have not changed (`site_key`), takes that build's
   HTML, table of contents and final file instead of being converted, indexed for search and
   put through the theme's template again; its search-index sections are the last build's too
   (`Pages.search_index`).

   A changed page with long tables or lists (the lists of every entry) is converted without the
   rows the last build converted (`Pages.convert`): a save that changes one entry's row in each
   list converts that row, not a thousand; and it is indexed for search the same way
   (`errorkb.site.searchrows`).

5. `Compiled`: the theme's templates compiled once per `mkdocs serve`, not once per build (MkDocs
   makes a new Jinja environment for every build); Jinja reuses a template's bytecode only while
   its source is the same.

6. `Dirty`: under `mkdocs serve --dirty` (what scripts/serve.sh runs), what MkDocs writes. A build
   from scratch empties the site folder and writes every file again, and builds every page
   (template context, every plugin's `on_page_context`, the theme's template): at 1,000 entries
   that, not the knowledge base, was most of a rebuild (3,000 files deleted and written; seconds
   of disk time on a busy machine). A dirty build writes only a file whose `File.is_modified()`
   holds, which MkDocs decides by modification times and which is always true for a generated
   file; so the plugin decides it for its own files: every page is read as before (other plugins,
   e.g. Material's tags, collect from every page), but a page `Pages` reused is not built again
   when its last output is on disk, nor a generated file written whose content is what the site
   folder holds. Hand-written pages are always built again (their nav, facts and tag listings
   come from the whole site). Files the last build published and this one does not (an entry
   removed or broken) are deleted, as a build from scratch would not have them.

7. `Survivors`: the garbage collector under `mkdocs serve`. What the memos above keep, with
   MkDocs, Material and every module imported, is some 300,000 objects at 1,000 entries that live
   across builds; Python's full (generation-2) collection scans every one of them, and a rebuild
   ran 0.3-1.0 of them (0.2-0.9 s each, growing with the knowledge base), to find a few hundred
   objects of garbage. At the start of each rebuild, once every plugin has let go of the last
   build's pages, the collector frees what that build left (scanning only what is not frozen:
   22,000-56,000 objects at 1,000 entries) and freezes the survivors (`gc.freeze`: the kept state leaves the
   generations the collector scans). A frozen object that becomes garbage in a cycle is not freed
   while frozen, so the frozen set may only grow by a quarter (Python's own measure for a full
   collection: `long_lived_pending > long_lived_total / 4`) over what the last full collection left,
   and at most 50 rebuilds pass (what garbage holds untracked: strings, dicts of strings), before a
   rebuild starts with a full collection again. `mkdocs build` never freezes anything.

The result is the same, byte for byte, as a build from scratch (tests/site/test_live.py).
"""

from __future__ import annotations

import copy
import gc
import json
import os
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2
from mkdocs.structure.files import File
from mkdocs.utils.meta import get_data

from errorkb.core.entry import Entry
from errorkb.core.load import LoadedEntry, LoadResult, load_entry_file, load_project_entries
from errorkb.core.problems import Problem
from errorkb.core.project import Project
from errorkb.core.snippets import walk
from errorkb.results.records import CheckRecord
from errorkb.results.report import Report, ReportError, latest_results, read_report, read_reports
from errorkb.site import files as site
from errorkb.site import render

if TYPE_CHECKING:
    from errorkb.results.matrix import MatrixFile

Signature = tuple[int, int, int, int] | None


def signature(path: str | os.PathLike[str]) -> Signature:
    """What tells a changed file from an unchanged one without reading it: size, modification
    and change times (nanoseconds), inode (an editor that saves by replacing the file)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino


def tree_signature(folder: Path) -> tuple[tuple[str, Signature], ...]:
    """Every file under `folder` (recursively) and its signature; () when there is none. On
    strings: every snippet folder's, on every rebuild."""
    found = []
    top = os.fspath(folder)
    for base, folders, names in walk(top):  # not os.walk: it recurses once per level
        folders.sort()
        inside = os.path.relpath(base, top)
        prefix = "" if inside == "." else inside.replace(os.sep, "/") + "/"
        found += [(prefix + name, signature(os.path.join(base, name))) for name in sorted(names)]
    return tuple(found)


@dataclass
class _Made:
    """An entry's page model and generated files, and what they were made from."""

    inputs: tuple[Any, ...]
    page: render.EntryPage
    files_key: tuple[Any, ...] = ()
    files: tuple[site.SiteFile, ...] = ()
    listed: tuple[object, ...] = ()  # `render.listed(page)` when `files` were made


@dataclass
class Sources:
    """The generated files of the last build and their inputs (stages 1-3)."""

    root: Path | None = None
    settings: Signature = None
    _loaded: dict[Path, tuple[Signature, tuple[LoadedEntry | None, list[Problem]]]] = field(default_factory=dict)
    _reports: tuple[Any, tuple[list[Report], list[str]]] | None = None
    _good: dict[Path, Report] = field(default_factory=dict)  # each report file's last good read
    _matrix: tuple[Signature, MatrixFile | None, str | None] | None = None
    _made: dict[str, _Made] = field(default_factory=dict)
    _shared: tuple[Any, list[site.SiteFile]] | None = None
    _rows: render.Rows = field(default_factory=render.Rows)
    _coverage: tuple[Any, site.SiteFile] | None = None
    _constant: list[site.SiteFile] | None = None
    remade: list[str] = field(default_factory=list)  # the entries whose files the last build made again

    def _same_project(self, project: Project) -> None:
        settings = signature(project.root / "pyproject.toml")
        if (self.root, self.settings) != (project.root, settings):  # another project, or new settings
            self.__init__()  # type: ignore[misc]
            self.root, self.settings = project.root, settings

    # -- 1. entries --------------------------------------------------------------------------------

    def entries(self, project: Project, reserved_ids: frozenset[str]) -> LoadResult:
        """The entries, each file loaded again only when it changed; what is kept is the files there are now
        (a file renamed or removed is forgotten: a long session's saves never add up)."""
        self._same_project(project)
        read: set[Path] = set()

        def one(path: Path, project: Project) -> tuple[LoadedEntry | None, list[Problem]]:
            read.add(path)
            return self._read(path, project)

        result = load_project_entries(project, reserved_ids, read=one)
        for gone in set(self._loaded) - read:
            del self._loaded[gone]
        return result

    def _read(self, path: Path, project: Project) -> tuple[LoadedEntry | None, list[Problem]]:
        now = signature(path)
        known = self._loaded.get(path)
        if known is not None and now is not None and known[0] == now:
            return known[1]
        result = load_entry_file(path, project)
        self._loaded[path] = (now, result)
        return result

    # -- 2. reports --------------------------------------------------------------------------------

    def reports(self, project: Project, devices: Sequence[str]) -> tuple[list[Report], list[str]]:
        self._same_project(project)
        key = (tree_signature(project.reports), tuple(devices))
        if self._reports is None or self._reports[0] != key:
            kept: list[str] = []
            good: dict[Path, Report] = {}

            def read(path: Path) -> Report:
                try:
                    good[path] = read_report(path)
                except ReportError as error:
                    if path not in self._good:
                        raise
                    good[path] = self._good[path]
                    kept.append(f"{error}; {LAST_GOOD}")
                return good[path]

            reports, problems = read_reports(project.reports, devices, reader=read)
            self._good = good  # a file removed, or left out, keeps no read
            self._reports = (key, (reports, [*problems, *kept]))
        return self._reports[1]

    # -- 3. generated files ------------------------------------------------------------------------

    def files(self, project: Project, loaded: LoadResult, reports: list[Report], *,
              edit_url: Callable[[str], str | None] | None = None
              ) -> tuple[list[render.EntryPage], list[site.SiteFile]]:
        """What `site.site_files` returns, each part made again only when its inputs changed."""
        self._same_project(project)
        results = latest_results(reports)
        inputs = entry_inputs(project, loaded.entries, results)
        by_id = {one.entry.id: one for one in loaded.entries}
        changed = {entry_id for entry_id, key in inputs.items()
                   if entry_id not in self._made or self._made[entry_id].inputs != key}
        if changed:
            # The changed entries' page models, made with every entry their pages name in reach.
            reach = set(changed)
            for entry_id in changed:
                reach.update(inputs[entry_id][-1][0])
            fresh = render.build_pages(project, [by_id[i] for i in sorted(reach)], results)
            for page in fresh:
                if page.entry.id in changed:
                    self._made[page.entry.id] = _Made(inputs[page.entry.id], page)
        for gone in set(self._made) - set(inputs):
            del self._made[gone]
        pages = [self._made[entry_id].page for entry_id in sorted(inputs)]
        site.place_matrix(self._matrix_file(project), pages)
        self.remade = []
        out: list[site.SiteFile] = []
        for page in pages:
            made = self._made[page.entry.id]
            url = edit_url(page.yaml_path) if edit_url else None
            files_key = (made.inputs, page.versions, page.states, url)
            if made.files_key != files_key:
                markdown = render.render_entry(page, edit_url=url)
                made.files = (site.SiteFile(page.url, markdown, page.yaml_path, page=True),
                              site.SiteFile(render.api_path(page.entry), site.json_text(render.entry_document(page))))
                made.files_key, made.listed = files_key, render.listed(page)
                self.remade.append(page.entry.id)
            out += made.files
        out += self._listing_files(project, pages, reports)
        out.append(self._coverage_file(project, loaded, pages))
        return pages, out + self._constant_files()

    def matrix(self, project: Project) -> tuple[MatrixFile | None, str | None]:
        """The version matrix and why it does not read now (`matrix_problem`), read again only when its file
        changed; a file that read at an earlier build and does not now keeps that last good read (`reports`)."""
        from errorkb.results.matrix import NO_RANGES, MatrixError, load_matrix, matrix_path

        self._same_project(project)
        key = signature(matrix_path(project))
        if self._matrix is None or self._matrix[0] != key:
            try:
                self._matrix = (key, load_matrix(matrix_path(project), project.library.dist), None)
            except MatrixError as error:
                last = self._matrix[1] if self._matrix is not None else None
                self._matrix = (key, last, f"{error}; {LAST_GOOD if last is not None else NO_RANGES}")
        return self._matrix[1], self._matrix[2]

    def _matrix_file(self, project: Project) -> MatrixFile | None:
        return self.matrix(project)[0]

    def _listing_files(self, project: Project, pages: list[render.EntryPage],
                       reports: list[Report]) -> list[site.SiteFile]:
        """The pages and files that list every entry (all but the coverage page, the schemas, the
        assets), made again only when what they show of some entry (`render.listed`) or the
        reports changed: a save that changes an entry's prose or a snippet leaves them as they were."""
        listed = {page.entry.id: self._made[page.entry.id].listed for page in pages}
        key = (tuple(listed.values()), self._reports[0] if self._reports else None)
        if self._shared is None or self._shared[0] != key:
            self._rows.start(listed)  # and each entry's rows are rendered again only when its `listed` changed
            self._shared = (key, site.listing_files(project, pages, reports, self._rows))
        return self._shared[1]

    def _coverage_file(self, project: Project, loaded: LoadResult, pages: list[render.EntryPage]) -> site.SiteFile:
        # The entry files, and where each entry stands (a report saved turns a row's "verified" into "failing").
        key = (tuple(sorted((str(one.path), signature(one.path)) for one in loaded.entries)),
               tuple(render.coverage_standing(pages).items()))
        if self._coverage is None or self._coverage[0] != key:
            page = site.SiteFile(render.COVERAGE, site.coverage_page(project, loaded, pages), page=True)
            self._coverage = (key, page)
        return self._coverage[1]

    def _constant_files(self) -> list[site.SiteFile]:
        if self._constant is None:
            self._constant = site.constant_files()
        return self._constant


LAST_GOOD = ("the pages show its last good read until it reads again (is it being copied in or checked out? the next "
             "save rebuilds); a build from scratch leaves it out")


def entry_inputs(project: Project, loaded: list[LoadedEntry],
                 results: dict[str, CheckRecord]) -> dict[str, tuple[Any, ...]]:
    """entry id → everything its page model is made from: its file, every file of its snippet
    folder, its records, and the entries its page names (`related`, both ways) with their files.
    The last item is always (names, their signatures)."""
    records: dict[str, list[CheckRecord]] = defaultdict(list)
    for record in results.values():
        records[record.entry].append(record)
    loaded_ids = {one.entry.id: one for one in loaded}
    naming: dict[str, set[str]] = defaultdict(set)
    for one in loaded:
        for other in one.entry.related:
            naming[other].add(one.entry.id)
    out = {}
    for one in loaded:
        entry: Entry = one.entry
        named = sorted((set(entry.related) | naming[entry.id]) & set(loaded_ids) - {entry.id})
        out[entry.id] = (signature(one.path), tree_signature(project.snippets / entry.id),
                         tuple(sorted(records.get(entry.id, []), key=lambda record: record.id)),
                         (tuple(named), tuple(signature(loaded_ids[other].path) for other in named)))
    return out


# -- 4. what MkDocs made of a generated page -------------------------------------------------------------


@dataclass
class Made:
    """A generated page as the last build made it."""

    key: str  # site_key + the page's Markdown
    content: str  # the HTML of its Markdown, after every plugin's `on_page_content`
    toc: Any
    title: str | None
    anchors: set[str]
    output: str = ""  # the whole file, after the theme's template and every `on_post_page`
    search: list[dict[str, Any]] = field(default_factory=list)  # its sections in the search index


@dataclass
class Pages:
    """The HTML of every generated page of the last build, its final file and its search sections."""

    made: dict[str, Made] = field(default_factory=dict)  # by the page's URL
    read: dict[str, tuple[str, str, dict[str, Any]]] = field(default_factory=dict)  # URL → (source, Markdown, meta)
    reused: set[str] = field(default_factory=set)  # the URLs of this build's pages taken from `made`
    fresh: set[str] = field(default_factory=set)  # the URLs of this build's pages made anew
    # URL → (site key, the kinds of `row_blocks` its HTML held as planned, row → its HTML)
    rows: dict[str, tuple[str, frozenset[str], dict[str, str]]] = field(default_factory=dict)

    def split(self, url: str, source: str) -> tuple[str, dict[str, Any]]:
        """A page's source split into Markdown and front matter as MkDocs splits it
        (`get_data`), taken from the last build when the source is the same."""
        known = self.read.get(url)
        if known is None or known[0] != source:
            known = (source, *get_data(source))
            self.read[url] = known
        return known[1], _copied(known[2])

    def start(self) -> None:
        self.reused, self.fresh = set(), set()

    def reuse(self, url: str, key: str) -> Made | None:
        made = self.made.get(url)
        if made is not None and made.key == key and made.output:
            self.reused.add(url)
            return made
        self.fresh.add(url)
        return None

    def convert(self, url: str, site_key: str, markdown: str, render: Callable[[str], str]) -> str:
        """The HTML of a generated page's `markdown`, as `render` (MkDocs' conversion of the page)
        makes it, each row of its blocks of rows (`row_blocks`: tables, one-line lists) that the last
        build of this page converted taken from there: only the rest of the page and its new rows are
        converted. A row converts alone as it does among the others (the list templates write no
        reference links, footnotes or abbreviations); should the HTML not hold the blocks planned, the
        whole page is converted. A kind of block whose elements the page's last HTML did not hold as
        planned (a list of several lines per item) is left to be converted with the rest."""
        lines = markdown.split("\n")
        blocks = row_blocks(lines)
        known = self.rows.get(url)
        html = None
        if known is not None and known[0] == site_key:
            planned = [block for block in blocks if block.kind in known[1]]
            if planned:
                reduced, kept = _without_known_rows(lines, planned, known[2])
                html = _with_known_rows(render(reduced), planned, lines, kept, known[2])
        if html is None:
            html = render(markdown)
        trusted: set[str] = set()
        rows: dict[str, str] = {}
        for kind in ROW_KINDS:
            mine = [block for block in blocks if block.kind == kind]
            found = element_rows(html, kind, [len(block.lines) for block in mine]) if mine else None
            if found is not None:
                trusted.add(kind)
                rows.update((lines[i], row) for block, elements in zip(mine, found, strict=True)
                            for i, row in zip(block.lines, elements, strict=True))
        self.rows[url] = (site_key, frozenset(trusted), rows)
        return html

    def search_index(self, written: str, order: list[str]) -> str:
        """The search index a build from scratch would have written: `written` (what the search
        plugin wrote: the sections of every page it indexed, i.e. all but the reused) with each
        reused page's sections put back in its place (`order`: every page's URL, in build order)."""
        data = json.loads(written)
        by_page: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for doc in data["docs"]:
            by_page[str(doc.get("location", "")).split("#", 1)[0]].append(doc)
        for url in self.fresh:
            if url in self.made:
                self.made[url].search = by_page.get(url, [])
        docs = []
        for url in dict.fromkeys([*order, *by_page]):
            docs += self.made[url].search if url in self.reused else by_page.get(url, [])
        return json.dumps({**data, "docs": docs}, separators=(",", ":"), default=str)


def _copied(value: Any) -> Any:
    """A deep copy of front matter (what YAML makes: mostly dicts, lists and scalars), each build
    its own (plugins may change a page's meta): `copy.deepcopy` costs more, on every page."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if value is None or isinstance(value, str | int | float):  # bool is an int
        return value
    return copy.deepcopy(value)


_FENCE = re.compile(r"^(`{3,}|~{3,})")
_DELIMITER = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")


@dataclass(frozen=True)
class RowBlock:
    """Lines of a page's Markdown that each convert to one element of one container: a table's
    body rows (`<tr>` in `<tbody>`), or a list of one line per item (`<li>` in `<ul>`)."""

    kind: str  # "table" or "list" (`ROW_KINDS`)
    lines: range  # line indexes


# kind → (the container's opening, its closing, how each element starts and ends)
ROW_KINDS = {"table": ("<tbody>\n", "</tbody>", "<tr>", "</tr>\n"), "list": ("<ul>\n", "</ul>", "<li>", "</li>\n")}


def row_blocks(lines: Sequence[str]) -> list[RowBlock]:
    """The blocks of rows of a page's Markdown, each a block of its own at the top level: after a
    blank line and outside a fence, either a `| ... |` line, a `|---|` line, then rows (its body),
    or `- ` items of one line each; up to a blank line or the end."""
    blocks, fence, index = [], "", 0
    while index < len(lines):
        line = lines[index]
        opening = _FENCE.match(line)
        after_blank = index == 0 or not lines[index - 1].strip()
        if fence:
            fence = "" if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence) \
                and not line[len(opening.group(1)):].strip() else fence
        elif opening:
            fence = opening.group(1)
        elif after_blank and line.startswith("|") and index + 1 < len(lines) and _DELIMITER.match(lines[index + 1]):
            block = _run(lines, index + 2, "|", "table")
            blocks += [block] if block and block.lines else []
            index = block.lines.stop if block else index + 2
            continue
        elif after_blank and line.startswith("- "):
            block = _run(lines, index, "- ", "list")
            blocks += [block] if block else []
            index = block.lines.stop if block else index + 1
            continue
        index += 1
    return blocks


def _run(lines: Sequence[str], start: int, prefix: str, kind: str) -> RowBlock | None:
    """The lines from `start` that begin with `prefix`, when a blank line or the end follows them."""
    end = start
    while end < len(lines) and lines[end].startswith(prefix):
        end += 1
    return RowBlock(kind, range(start, end)) if end == len(lines) or not lines[end].strip() else None


def _without_known_rows(lines: list[str], blocks: list[RowBlock], known: dict[str, str]
                        ) -> tuple[str, list[list[bool]]]:
    """The Markdown with each block keeping only its rows `known` lacks (its first row when it
    lacks none: a table keeps a body, a list an item), and which rows of each block were kept."""
    drop: set[int] = set()
    kept = []
    for block in blocks:
        keep = [lines[i] not in known for i in block.lines]
        if not any(keep):
            keep[0] = True
        kept.append(keep)
        drop.update(i for i, one in zip(block.lines, keep, strict=True) if not one)
    return "\n".join(line for i, line in enumerate(lines) if i not in drop), kept


def _with_known_rows(html: str, blocks: list[RowBlock], lines: list[str], kept: list[list[bool]],
                     known: dict[str, str]) -> str | None:
    """The HTML of the Markdown without its known rows (`_without_known_rows`), each block's
    known rows put back in their places; None when its blocks are not those kept."""
    spans: list[tuple[int, int, list[str]]] = []  # (start, end) of each block's elements in `html`, its rows
    for kind in ROW_KINDS:
        mine = [(block, keep) for block, keep in zip(blocks, kept, strict=True) if block.kind == kind]
        if not mine:
            continue
        found = _containers(html, kind)
        if found is None or [len(rows) for _, _, rows in found] != [sum(keep) for _, keep in mine]:
            return None
        for (start, end, fresh), (block, keep) in zip(found, mine, strict=True):
            taken = iter(fresh)
            spans.append((start, end, [next(taken) if one else known[lines[i]]
                                       for i, one in zip(block.lines, keep, strict=True)]))
    out, at = [], 0
    for start, end, rows in sorted(spans):
        if start < at:  # a container inside another: not what was planned
            return None
        out += [html[at:start], *rows]
        at = end
    return "".join(out) + html[at:]


def _containers(html: str, kind: str) -> list[tuple[int, int, list[str]]] | None:
    """(start, end, elements) of every container of `kind` in `html`, as Python-Markdown writes them
    (its opening and a newline, then elements each followed by a newline); None when one is not so."""
    opening, closing, first, last = ROW_KINDS[kind]
    found, at = [], 0
    while (start := html.find(opening, at)) >= 0:
        start += len(opening)
        end = html.find(closing, start)
        if end < 0:
            return None
        pieces = html[start:end].split(last)
        if pieces[-1] or not all(piece.startswith(first) for piece in pieces[:-1]):
            return None
        found.append((start, end, [piece + last for piece in pieces[:-1]]))
        at = end
    return found


def element_rows(html: str, kind: str, counts: list[int]) -> list[list[str]] | None:
    """The elements (rows, items, each with its newline) of each container of `kind` in `html`;
    None unless there are as many containers as `counts`, of those sizes."""
    found = _containers(html, kind)
    rows = [elements for _, _, elements in found or []]
    return rows if found is not None and [len(one) for one in rows] == counts else None


def site_key(config_file: Path, docs_dir: Path, theme_dirs: list[Path], generated: set[str]) -> tuple[Any, ...]:
    """What every page's final file depends on besides its own Markdown: the configuration, the
    theme's overrides and every hand-written page of docs/ (their titles make the nav). Entry
    YAML files in docs/ are not among them: each is its own page's input."""
    hand_written = tuple((path, sig) for path, sig in tree_signature(docs_dir)
                         if path.endswith(".md") and path not in generated)
    return (signature(config_file), hand_written, tuple(tree_signature(folder) for folder in theme_dirs))


class Compiled(jinja2.BytecodeCache):
    """Compiled templates in memory, by name and source checksum (Jinja's own check)."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        if bucket.key in self.store:
            bucket.bytecode_from_string(self.store[bucket.key])

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


# -- 6. what a dirty build writes ---------------------------------------------------------------------


@dataclass
class Dirty:
    """What the site folder holds from the last builds of a `mkdocs serve --dirty`."""

    building: bool = False  # MkDocs has read every page and now writes (from the plugin's `on_env`)
    copied: dict[str, str] = field(default_factory=dict)  # destination → content of each generated file written
    outputs: set[str] = field(default_factory=set)  # the destination of every file the last build published
    written: list[str] = field(default_factory=list)  # the generated files and pages this build wrote

    def start(self) -> None:
        self.building, self.written = False, []

    def modified(self, file: File, pages: Pages) -> bool:
        """`File.is_modified()` of a generated file: whether MkDocs must read (always) and write it."""
        there = os.path.isfile(file.abs_dest_path)
        if file.is_documentation_page():
            if not self.building:
                return True  # read every page: what other plugins collect from pages stays whole
            if there and file.url in pages.reused:
                return False
        else:
            content = file.content_string
            if there and self.copied.get(file.abs_dest_path) == content:
                return False
            self.copied[file.abs_dest_path] = content
        self.written.append(file.src_uri)
        return True

    def remove_stale(self, now: set[str], site_dir: Path) -> list[str]:
        """Deletes what the last build published and this one does not (and folders left empty);
        returns the paths deleted, site-relative."""
        gone = sorted(self.outputs - now)
        for path in gone:
            Path(path).unlink(missing_ok=True)
            self.copied.pop(path, None)
            folder = Path(path).parent
            while folder != site_dir and folder.is_relative_to(site_dir) and folder.is_dir() \
                    and not any(folder.iterdir()):
                folder.rmdir()
                folder = folder.parent
        self.outputs = now
        return [Path(path).relative_to(site_dir).as_posix() for path in gone if Path(path).is_relative_to(site_dir)]


# -- 7. the garbage collector across rebuilds ---------------------------------------------------------


@dataclass
class Survivors:
    """Under `mkdocs serve`: what lives across rebuilds, frozen out of the collector's generations
    at the start of each rebuild, the last build's garbage freed first."""

    grows: float = 0.25  # how much the frozen set may grow over what the last full collection left
    every: int = 50  # and the most rebuilds between two full collections (what frozen garbage holds untracked)
    base: int = 0  # the objects frozen after the last full collection
    rebuilds: int = 0  # the builds started
    full: int = 0  # the full collections `start` ran (every object scanned, the frozen too)
    frozen: bool = False  # whether this object froze what the collector now leaves alone
    _last_full: int = 0  # the build that started with the last full collection

    def start(self) -> None:
        """At the start of a build, once every plugin has let go of the last build's objects (their
        `on_config`): frees what the last build left and freezes the rest. The first build has
        nothing kept to freeze; after it, a full collection (nothing frozen yet, the frozen set grown
        by more than `grows`, or `every` rebuilds since the last) sets the frozen set's measure: a
        frozen object that became garbage in a cycle (and all it holds, tracked or not) is freed then."""
        self.rebuilds += 1
        if self.rebuilds == 1:
            return
        full = (not self.frozen or gc.get_freeze_count() > self.base * (1 + self.grows)
                or self.rebuilds - self._last_full >= self.every)
        if full and self.frozen:
            gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.frozen = True
        if full:
            self.base, self.full, self._last_full = gc.get_freeze_count(), self.full + 1, self.rebuilds

    def release(self) -> None:
        """When `mkdocs serve` ends (or the process builds otherwise): the frozen objects back to
        the collector's oldest generation."""
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
