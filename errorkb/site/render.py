"""Entries + verification reports → Markdown pages and JSON documents.

Plain functions with no MkDocs in sight: the plugin calls them during a build, and
`errorkb render --out DIR` writes the same pages for any other static-site engine. The
Markdown uses only admonitions, content tabs, fences and a little inline HTML for badges,
which Material and its successors understand. Nothing here imports the runtime or runs a snippet:
pages show what a report says. Author prose always goes through `inert` (see `errorkb.site.inert`);
every other value is escaped for where it is written (`errorkb.site.escape`): the templates
autoescape, so a value no filter marked is text in any engine.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import posixpath
import re
import textwrap
import typing
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
from markupsafe import Markup

from errorkb.core.entry import Entry, library_folder
from errorkb.core.load import LoadedEntry, snippet_inside
from errorkb.core.message import GENERIC_WORDINGS, MessageTemplate, Placeholder
from errorkb.core.problems import Problem
from errorkb.core.project import LibraryProfile, Project
from errorkb.core.prose import disarm_includes, visible
from errorkb.core.snippets import Snippet, read_snippet
from errorkb.core.words import release_words as release_words
from errorkb.lookup import names_releases
from errorkb.lookup.build import (
    beneath_library,
    index_fields,
    installed_path,
    library_classes,
    rules_document,
    uses_user_types,
)
from errorkb.plugs import runtime_for
from errorkb.results.keys import STALE_WHY, project_inputs
from errorkb.results.matrix import ReleaseState, State
from errorkb.results.records import TARGETS, CheckRecord, Outcome, unrooted
from errorkb.results.report import Report
from errorkb.site import escape, evidence, picture
from errorkb.site.inert import inert, inert_line

# Where the site-wide pages live (docs-relative): `names.py`, read by the loader's callers without rendering.
from errorkb.site.names import BY_API as BY_API
from errorkb.site.names import BY_EXCEPTION as BY_EXCEPTION
from errorkb.site.names import CHECK_SCHEMA_JSON as CHECK_SCHEMA_JSON
from errorkb.site.names import COVERAGE as COVERAGE
from errorkb.site.names import ERRORS_INDEX as ERRORS_INDEX
from errorkb.site.names import INDEX_JSON as INDEX_JSON
from errorkb.site.names import MIGRATION as MIGRATION
from errorkb.site.names import SCHEMA_JSON as SCHEMA_JSON
from errorkb.site.names import TAGS as TAGS
from errorkb.site.names import VERIFICATION as VERIFICATION
from errorkb.source.coverage import Coverage, FileCoverage
from errorkb.source.upstream import pinned_file, read_source

__all__ = ["EntryPage", "build_pages", "render_entry", "render_index", "render_by_exception", "render_by_api",
           "render_verification", "entry_document", "index_document", "inert", "badges", "shown_badges", "badge_words",
           "target_words", "captured_error"]

TEMPLATES = Path(__file__).parent / "templates"
T = typing.TypeVar("T")



@dataclass(frozen=True)
class VersionRange:
    """What the version matrix found for one entry, already worded: "5.5.1 – 5.24.0"."""

    raises: str  # releases where the before snippet raised the error ("" if none)
    fix_works: str  # releases where the after snippet passed
    fixed_in: str | None  # first release after the last raising one where it no longer raises
    newest: str | None  # the newest release the matrix ran
    tested: int  # releases that ran
    failed_setup: tuple[str, ...] = ()
    stale: str = ""  # which releases' results are stale, worded (`matrix.describe_stale`); "": none
    lines: tuple[tuple[str, str, int], ...] = ()  # (first, last release, raise line) spans
    measured: str | None = None  # date of the matrix report
    fixed_reason: str | None = None  # what the before did instead in `fixed_in`
    not_run: str | None = None  # why the before ran in no release (an unmet need)
    by_release: tuple[tuple[str, int], ...] = ()  # (release, raise line) in matrix order: the lookup's clue
    worked_until: str | None = None  # a removed API: the last release before it raised where the old call ran
    wordings: tuple[tuple[int, str], ...] = ()  # (wording index, releases it was raised so) as measured
    disagrees: tuple[str, ...] = ()  # releases where the entry's declared range and the measurement differ
    stale_releases: tuple[str, ...] = ()  # the releases `stale` words: each marked in the strip and the heat map


@dataclass
class EntryPage:
    entry: Entry
    yaml_path: str  # relative to the project root
    library: LibraryProfile
    devices: tuple[str, ...]  # the runtime's device kinds, for the badges
    snippets: dict[str, Snippet]  # role → snippet (a file that cannot be read is left out)
    snippet_paths: dict[str, str]  # role → path relative to the project root, for links and messages
    records: list[CheckRecord]  # latest verification record of each check of this entry, its reason worded now
    related: list[Entry] = field(default_factory=list)
    excerpt: list[tuple[int, str]] | None = None
    versions: VersionRange | None = None  # from the upstream version matrix, when one ran
    inputs: str = ""  # results.keys.inputs_digest of the entry and its snippet folder now
    states: tuple[ReleaseState, ...] = ()  # what the version matrix measured at each of its releases

    @property
    def strip(self) -> picture.Strip | None:
        """The release strip: a cell per release of the matrix, the declared range beside it."""
        if not self.states:
            return None
        declared = self.entry.releases.raises if self.entry.releases else None
        return picture.strip(self.states, declared, self.entry.raises_at,
                             self.versions.stale_releases if self.versions else ())

    @property
    def url(self) -> str:
        return page_path(self.entry)

    @property
    def hashes(self) -> dict[str, str]:
        """role → what a record of that role must have been made from to be fresh: the entry's
        inputs now (the whole entry and its snippet folder) and the snippet's bytes (`evidence.fresh_key`);
        a snippet that cannot be read has none."""
        return {role: evidence.fresh_key(self.inputs, snippet.sha256) for role, snippet in self.snippets.items()}

    @property
    def allowed(self) -> list[tuple[str, str, list[str]]]:
        """(primitive, reason, the snippets it is allowed in) of every allowance: what the allow-list lets
        these snippets do that a snippet written to fool its verifier would do, shown beside the badges."""
        found: dict[tuple[str, str], list[str]] = {}
        for role, _ in self.entry.snippets():
            for allowance in self.entry.allowances(role):
                found.setdefault((allowance.primitive, allowance.reason), []).append(str(role))
        return [(primitive, reason, roles) for (primitive, reason), roles in found.items()]

    def records_for(self, role: str) -> list[CheckRecord]:
        return [r for r in self.records if r.role == role]

    def is_stale(self, record: CheckRecord) -> bool:
        return evidence.is_stale(record, self.hashes)

    @property
    def any_stale(self) -> bool:
        return any(self.is_stale(record) for record in self.records)


# An entry's prose: what its own page shows and no list of entries does.
PROSE = frozenset({"meaning", "trigger", "situations", "solutions", "prevention", "notes"})


def listed(page: EntryPage) -> tuple[object, ...]:
    """All the lists of entries (`errorkb.site.files.listing_files`) may show of one entry: the
    entry but its prose, where its files are, which snippets it has, its records and whether each
    is stale, what the version matrix measured. `mkdocs serve` renders the lists again only when
    this changes for some entry (or the reports do), and then only that entry's rows (`Rows`); a
    list that shows more must add it here (tests/site/test_live.py changes every prose field and
    holds every list to the same bytes)."""
    return (page.entry.model_dump_json(exclude=set(PROSE)), page.yaml_path, tuple(page.snippet_paths.items()),
            tuple(page.snippets), tuple(page.records), tuple(page.is_stale(record) for record in page.records),
            page.versions, page.states)


_PLAIN_NAME = re.compile(r"^[a-z0-9_.-]*[a-z0-9_-][a-z0-9_.-]*$")


def page_path(entry: Entry) -> str:
    """Where an entry's page lives in the site, as a docs-relative Markdown path: always inside
    errors/<its library's folder>/ (ValueError otherwise: the model refuses such an entry, and no
    other route may place a page over another)."""
    folder = library_folder(entry.library)
    if not (_PLAIN_NAME.match(folder) and _PLAIN_NAME.match(entry.id)):
        raise ValueError(f"entry {entry.id!r} of {entry.library!r} has no page path inside errors/")
    return f"errors/{folder}/{entry.id}.md"


def site_url(entry: Entry) -> str:
    """The entry page's URL relative to the site root (directory URLs)."""
    return page_path(entry).removesuffix(".md") + "/"


def api_path(entry: Entry) -> str:
    return f"api/errors/{entry.id}.json"


def html_link(source: str, target: str) -> Markup:
    """Relative URL from the Markdown page `source` to the page `target` (both docs-relative), for
    an `href` inside an HTML block, which no engine rewrites: directory URLs (`errors/x/`), as the
    site is built."""
    def address(path: str) -> str:
        stem = path.removesuffix(".md")
        return "" if stem == "index" else stem.removesuffix("/index") + "/"
    here, there = address(source), address(target)
    relative = posixpath.relpath(there or ".", here.rstrip("/") or ".")
    return escape.url("./" if relative == "." else relative + "/")


def link(source: str, target: str) -> Markup:
    """Relative link from the Markdown page `source` to the file `target` (both docs-relative),
    as a link destination."""
    return escape.url(posixpath.relpath(target, posixpath.dirname(source) or "."))


# -- reading ----------------------------------------------------------------------------------


def shown_record(record: CheckRecord, bundled: str | None = None, root: str | None = None) -> CheckRecord:
    """The record as every view of it reads it (badges, tables, hover text, the terminal, the JSON API): its `reason`
    the words of now (`CheckRecord.said`: a claim worded today, an older record's range in words), never the words a
    verifier chose on its day; its reason, captured message and traceback without the folders of the machine that
    ran it (`unrooted`, the verifier's own rule, with the project's `bundled` package and `root`: a record written
    before records were stored unrooted keeps them); what it was judged on (outcome, code, claim) as stored."""
    def shown(text: str) -> str:
        return unrooted(text, bundled, root)

    update: dict[str, object] = {}
    if (said := shown(record.said)) != record.reason:
        update["reason"] = said
    error = record.exception
    if error is not None:
        words = {"message": shown(error.message), "traceback": shown(error.traceback or "") or error.traceback}
        if words != {"message": error.message, "traceback": error.traceback}:
            update["exception"] = error.model_copy(update=words)
    return record.model_copy(update=update) if update else record


def build_pages(project: Project, loaded: list[LoadedEntry], results: dict[str, CheckRecord]) -> list[EntryPage]:
    """One page model per loadable entry; a missing snippet leaves a gap, never a crash."""
    by_id = {one.entry.id: one.entry for one in loaded}
    by_entry: dict[str, list[CheckRecord]] = defaultdict(list)
    for record in results.values():
        by_entry[record.entry].append(record)
    devices = runtime_for(project.library.runtime).devices
    pages = []
    for one in sorted(loaded, key=lambda item: item.entry.id):
        entry = one.entry
        snippets: dict[str, Snippet] = {}
        paths: dict[str, str] = {}
        for role, file in entry.snippet_files():
            path = project.snippet_path(entry.id, file)
            paths[role] = project.rel(path)
            if not snippet_inside(project, entry.id, path):  # the loader reports it; never publish what it leads to
                continue
            try:
                snippet = read_snippet(path, role, file)
                snippet.full  # noqa: B018 - decoded now: a file that is not UTF-8 text shows as missing
            except (OSError, UnicodeDecodeError):
                continue  # reported by the loader; the page shows the snippet as missing
            snippets[role] = snippet
        records = [shown_record(r, project.library.bundled, str(project.root))
                   for r in sorted(by_entry.get(entry.id, []), key=lambda r: r.id)]
        pages.append(EntryPage(entry, project.rel(one.path), project.library, devices, snippets, paths, records,
                               related_both_ways(entry, by_id), source_excerpt(project, entry),
                               inputs=project_inputs(project, entry)))
    return pages


def related_both_ways(entry: Entry, by_id: dict[str, Entry]) -> list[Entry]:
    """The entries `entry` lists in `related`, then those that list it, each once: one
    declaration links two pages, so authors never keep two lists in step (and a link added in
    a new entry's pull request shows on the old entry's page without touching its file)."""
    ids = [i for i in entry.related if i in by_id and i != entry.id]
    ids += sorted(other for other, one in by_id.items()
                  if entry.id in one.related and other not in ids and other != entry.id)
    return [by_id[i] for i in dict.fromkeys(ids)]


def source_excerpt(project: Project, entry: Entry, before: int = 8, after: int = 4) -> list[tuple[int, str]] | None:
    """Lines around the raise, read from the pinned release where it lies on this machine (the
    installed package, or its version-matrix environment): the page shows the real source
    without the repository storing a copy of it."""
    if entry.source.release is None:
        return None
    path = pinned_file(project, entry.source.release, entry.source.path, entry.source.runtime)
    lines = _file_lines(path) if path else None
    if not lines or entry.source.line > len(lines):
        return None
    first = max(entry.source.line - before, 1)
    last = min(entry.source.line + after, len(lines))
    return [(number, lines[number - 1]) for number in range(first, last + 1)]


@functools.lru_cache(maxsize=32)
def _file_lines(path: Path) -> tuple[str, ...] | None:
    """One read per file and build, however many entries pin lines in it."""
    text = read_source(path)
    return tuple(text.splitlines()) if text is not None else None


# -- evidence, per page -----------------------------------------------------------------------


VERDICTS = ("pass", "partial", "fail")  # what a badge says of the error: a verdict; before those that say none


def badges(page: EntryPage) -> list[evidence.Badge]:
    """Every badge of the entry, the verdicts first (verified, partly, failing) and then those that are none
    (not run, not applicable), each group in target × device order: on a phone, two 'not applicable' badges
    took the first screen before the one verified badge."""
    found = evidence.badges(page.records, page.hashes, page.devices, page.library.available_targets)
    return sorted(found, key=lambda b: VERDICTS.index(b.outcome) if b.outcome in VERDICTS else len(VERDICTS))


def target_words(library: LibraryProfile) -> dict[str, dict[str, str]]:
    """What each target is, in a reader's words ('bundled' and 'upstream' are the verifier's): `name` where a
    badge or a chip names it, `about` where there is room to say it. The one place these words are written;
    the paste box reads them from the index (`badge_words`)."""
    named = f"{library.name} {library.release}"
    words = {"bundled": {"name": f"reimplemented {named}",
                        "about": f"errorkb's faithful reimplementation of the {named} API this site documents, "
                                 f"proven equal to the real package: the same snippet runs, no {library.name} "
                                 f"code does"},
            "upstream": {"name": f"real {library.name}",
                         "about": f"the real {library.name} package, at the release named beside it"}}
    return {target: words[target] for target in library.available_targets if target in words}


@dataclass(frozen=True)
class Shown:
    """A badge as a page shows it: a verdict on one target × device, or the badges that are none (not run, not
    applicable) folded into one, said once with their reason and where, in the reader's words."""

    outcome: str
    where: str  # "real <library> · cpu"; folded: a device ("gpu"), a target's name, or each place named
    label: str  # the badge's words: "verified · stale"
    detail: str  # why (the hover text; a folded badge shows it)
    icon: str
    stale: bool = False
    date: str | None = None
    versions: str = ""

    @property
    def folded(self) -> bool:
        return self.outcome not in VERDICTS

    @property
    def said(self) -> str:
        """What a folded badge says beside its place: what it means, never read as a pass."""
        if self.outcome == "not-run":
            return f"{self.detail}. Not verified there: neither a pass nor a failure"
        return self.detail


def shown_badges(page: EntryPage) -> list[Shown]:
    """The entry's badges as its page and its lists show them: each verdict, then one badge per reason for
    those that are none, where they are worded by what they share (a device on every target: that device; a target
    on every device: its name) -- a device's 'not run' once, not once per target."""
    names = target_words(page.library)
    where: dict[str, str] = {target: names.get(target, {}).get("name", target)
                             for target in page.library.available_targets}
    found = badges(page)
    shown = [Shown(b.outcome, f"{where.get(b.target, b.target)} · {b.device}", b.label, b.detail, b.icon, b.stale,
                   b.date, b.versions) for b in found if b.outcome in VERDICTS]
    because: dict[tuple[str, str], set[tuple[str, str, str]]] = defaultdict(set)
    for record in page.records:
        because[(record.target, record.device)].add(record.because)
    # Folded on what the records were judged on (outcome, code, claim), never on the words a badge's detail says:
    # one claim worded two ways (a record from before the words changed) is one badge.
    groups: dict[tuple[str, tuple[tuple[str, str, str], ...]], list[evidence.Badge]] = {}
    for b in sorted((b for b in found if b.outcome not in VERDICTS), key=lambda b: b.outcome != "not-run"):
        groups.setdefault((b.outcome, tuple(sorted(because[(b.target, b.device)]))), []).append(b)
    for (outcome, _), group in groups.items():
        detail = group[0].detail
        targets = list(dict.fromkeys(b.target for b in group))
        devices = list(dict.fromkeys(b.device for b in group))
        every_target, every_device = len(targets) == len(where), len(devices) == len(page.devices)
        if len(group) != len(targets) * len(devices) or not (every_target or every_device):
            place = ", ".join(f"{where.get(b.target, b.target)} · {b.device}" for b in group)  # each place named
        elif every_target and every_device:
            place = "every target and device"
        elif every_target and len(where) > 1:
            place = ", ".join(devices)
        else:
            place = ", ".join(where.get(t, t) for t in targets)
        shown.append(Shown(outcome, place, evidence.OUTCOME_WORDS[outcome], detail, evidence.ICONS[outcome],
                           versions=" · ".join(dict.fromkeys(b.versions for b in group if b.versions))))
    return shown


def captured_error(page: EntryPage) -> CheckRecord | None:
    return evidence.captured_error(page.records, page.hashes)


# -- Markdown ---------------------------------------------------------------------------------


def marked_message(entry: Entry) -> Markup:
    """The template as HTML, placeholders wrapped so the page can show them as slots."""
    out = []
    for part in entry.template.parts:
        if isinstance(part, Placeholder):
            out.append(f'<span class="ekb-slot" title="filled in at run time">'
                       f'{{{html.escape(part.expression)}}}</span>')
        else:
            out.append(html.escape(part.text))
    return Markup("".join(out))


def fix_line(entry: Entry, oldest: str | None = None) -> Markup:
    """The fix in one line, under the message: the lookup's rule (`errorkb.lookup.build.fix_of`: the
    replacement of a removed API, else the first solution's title), with the author's Markdown inert
    and the release a plain value (text, never Markdown); its "since" as `replacement_words` says it."""
    releases = entry.releases
    if releases and releases.replacement:
        return Markup(f"use {replacement_words(releases.replacement, releases.replacement_since, oldest)}")
    return Markup(inert_line(entry.solutions[0].title))


def replacement_words(replacement: str, since: str | None, oldest: str | None = None) -> Markup:
    """A replacement as one line says it: the author's text (inert), then "(since X)" only where the text names
    no release of its own (a text that does carries its ranges, and "(since 4.46.3)" after "again from 5.13"
    contradicted it) and X is not the oldest release the version matrix ran (`oldest`: there "since 4.36.2" read
    as an arrival, where it only says that every release tested has it). The Versions section says the since on
    its own line, so nothing is lost."""
    said = inert_line(replacement)
    if since and since != oldest and not names_releases(replacement):
        said += f" (since {escape.text(since)})"
    return Markup(said)


@dataclass(frozen=True)
class StoryLine:
    """What the version matrix saw on a run of releases where the before did not raise as documented."""

    releases: str  # "4.36.2 – 4.37.2"
    words: str  # the state's words: "fix runs clean", "not applicable", "not run"
    why: str  # what the before did there (the first release's reason), or why it did not run


_LINE_NUMBERS = re.compile(r"(?:line |:)\d+\b")  # a raise line moves from release to release; the story does not


def release_story(states: typing.Sequence[ReleaseState]) -> list[StoryLine]:
    """The releases where the before did not raise as documented, in words: runs of consecutive releases in one
    state with the same reason (line numbers aside), each with what the before did there, or why it was not run.
    A phone shows no hover text: a strip cell's green 'fix runs clean' over releases where the error came from
    another function, or a 'not applicable' span, was said nowhere else."""
    runs: list[tuple[ReleaseState, ReleaseState, str]] = []
    for one in states:
        if one.state in (State.RAISES, State.OTHER_WORDING):
            runs.append((one, one, ""))
            continue
        key = f"{one.state}|{_LINE_NUMBERS.sub('#', one.before or '')}"
        if runs and runs[-1][2] == key:
            runs[-1] = (runs[-1][0], one, key)
        else:
            runs.append((one, one, key))
    lines = []
    for first, last, key in runs:
        if not key:
            continue
        span = first.release if first is last else f"{first.release} – {last.release}"
        lines.append(StoryLine(span, picture.WORDS[first.state][0], first.before or "no reason recorded"))
    return lines


def reading_title(title: str) -> str:
    """The title as a reader reads it where Material prints it as text (`<title>`, the header,
    search results, the tags page), which shows no code: without its backticks."""
    return " ".join(title.replace("`", "").split())


def fence(code: str, language: str = "python", indent: int = 0, options: str = "") -> Markup:
    """A fenced block long enough to hold any backticks in `code`, indented for tabs; a control or
    bidirectional character shows as its escape (a snippet's `\u202e` would reorder the code a
    reader sees, and a captured traceback's colour codes would hide text), and so does the `<` of a line
    a Markdown extension would replace with a file (`prose.disarm_includes`: report text no loader checked)."""
    code = disarm_includes(visible(code))
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`+", code)), default=0) + 1)
    block = f"{ticks}{language}{(' ' + options) if options else ''}\n{code.rstrip()}\n{ticks}"
    return Markup(textwrap.indent(block, " " * indent, lambda line: True))


def elided(template: MessageTemplate) -> str:
    """The message as a sentence, `…` where a value goes: what a search result shows under the title (the words alone,
    `literal_text`, read "a list of length  , but the Cache has   layers")."""
    return "".join("…" if isinstance(part, Placeholder) else part.text for part in template.parts)


@functools.lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    """Templates that autoescape: `finalize` writes every value no filter marked (a `Markup`) as
    `escape.text`; the filters name the other places a value can land."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, finalize=escape.text,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters.update(inert=lambda text: Markup(inert(text)), line=lambda text: Markup(inert_line(text)),
                       code=escape.code, url=escape.url,
                       attr=escape.attribute, yaml=escape.front_matter, fragment=escape.fragment, fence=fence,
                       num=lambda value: Markup(f"{float(value):.6g}"), short=shortened,
                       unrooted=unrooted,  # a stored reason the page shows outside a record (`shown_record`)
                       elided=elided)
    env.globals.update(link=link, page_path=page_path, reading_title=reading_title, api_path=api_path,
                       words=evidence.OUTCOME_WORDS, library_release=evidence.library_release,
                       picture_words=picture.WORDS, html_link=html_link,
                       ERRORS_INDEX=ERRORS_INDEX, BY_EXCEPTION=BY_EXCEPTION, BY_API=BY_API,
                       VERIFICATION=VERIFICATION, INDEX_JSON=INDEX_JSON, SCHEMA_JSON=SCHEMA_JSON,
                       CHECK_SCHEMA_JSON=CHECK_SCHEMA_JSON, COVERAGE=COVERAGE, STALE_WHY=STALE_WHY,
                       ON_OBJECT=evidence.ON_OBJECT, target_words=target_words, verified_count=verified_count,
                       release_words=release_words,
                       replacement_words=replacement_words)
    return env


SHORT_LINES = 12  # the lines of a reason a table shows: a report's text, of any size
SHORT = 160  # characters of a long message shown before "more"


def shortened(value: object, limit: int = SHORT) -> Markup:
    """A check's reason (which may quote code in backticks) on one table row: its first line cut to about `limit`
    characters at a space outside code, the whole text one click away in a `<details>`; a short one-line one as it
    is. A reason of several lines ("message differs" / expected / actual) keeps them there, each written as `line`
    writes it, at most `SHORT_LINES` of them: the text is a verifier's or a report's, never trusted to be small."""
    lines = [plain for line in str(value).splitlines() if (plain := " ".join(line.split()))]
    first = lines[0] if lines else ""
    if len(lines) > SHORT_LINES:
        lines = [*lines[:SHORT_LINES], f"… ({len(lines) - SHORT_LINES} more lines)"]
    whole = "<br>".join(inert_line(line) for line in lines)
    if sum(len(line) for line in lines) <= limit:  # short: as it is, its lines kept
        return Markup(whole)
    cut = None if len(first) <= limit else next(
        (index for index in range(limit, 0, -1) if first[index] == " " and first[:index].count("`") % 2 == 0), None)
    if cut is None and len(lines) <= 1:
        return Markup(whole)
    head = first if cut is None else first[:cut]
    return Markup(f'<details class="ekb-more"><summary>{inert_line(head)}&#8230; '
                  f'<span class="ekb-more__hint">(whole message)</span></summary>{whole}</details>')


def _render(name: str, **context: object) -> str:
    return _environment().get_template(name).render(**context)


class Rows:
    """Each entry's rows in the lists of every entry (and its badges), kept from one build to the
    next while what the lists may show of the entry (`listed`) is the same: under `mkdocs serve`
    (`errorkb.site.live` keeps one), a save that changes one entry renders that entry's rows only.
    A list template writes each row in `{% call row(page, ...) %}`, naming in the call whatever
    else the row shows; without a `Rows`, every row is rendered."""

    def __init__(self) -> None:
        self._kept: dict[str, tuple[object, dict[tuple[object, ...], object]]] = {}
        self.made = 0  # rows (and badges) made, not kept, since `start`

    def start(self, listed: typing.Mapping[str, object]) -> None:
        """This build's `listed(page)` by entry id: an entry's rows are kept only while it is the same."""
        self._kept = {entry_id: (key, kept[1] if (kept := self._kept.get(entry_id)) and kept[0] == key else {})
                      for entry_id, key in listed.items()}
        self.made = 0

    def get(self, page: EntryPage, key: tuple[object, ...], make: typing.Callable[[], T]) -> T:
        kept = self._kept.get(page.entry.id)
        if kept is None:  # an entry `start` did not name: never kept
            return make()
        if key not in kept[1]:
            kept[1][key] = make()
            self.made += 1
        return typing.cast(T, kept[1][key])


def _rows_context(name: str, rows: Rows | None) -> dict[str, object]:
    """`row` and `badges` for a list template: kept in `rows` when there is one."""
    if rows is None:
        return {"row": lambda page, *args, caller: caller(), "badges": badges, "shown": shown_badges}
    return {"row": lambda page, *args, caller: rows.get(page, (name, *args), caller),
            "badges": lambda page: rows.get(page, ("badges",), lambda: badges(page)),
            "shown": lambda page: rows.get(page, ("shown",), lambda: shown_badges(page))}


def render_entry(page: EntryPage, *, edit_url: str | None = None) -> str:
    """The entry's page; links are relative, so it works under any site root."""
    hashes = page.hashes
    return _render("entry.md.j2", page=page, entry=page.entry, here=page.url, badges=shown_badges(page),
                   captured=captured_error(page), clean=evidence.clean_run(page.records, hashes),
                   verdict=lambda role: evidence.role_verdict(page.records, role, hashes),
                   failed=lambda role: evidence.failed_run(page.records, role, hashes),
                   message_html=marked_message(page.entry), edit_url=edit_url, excerpt=_excerpt(page),
                   fix_line=fix_line(page.entry, oldest_tested(page)), story=release_story(page.states),
                   oldest=oldest_tested(page),
                   seen_as=lambda wording: evidence.raised_so(page.records, wording, hashes),
                   ran_on=lambda device: evidence.ran_on(page.records, device))


def oldest_tested(page: EntryPage) -> str | None:
    """The oldest release the version matrix ran for the entry; None without one."""
    return page.states[0].release if page.states else None


def _excerpt(page: EntryPage) -> Markup | None:
    """The source lines around the raise, as a fence numbered from the first and marking the raise."""
    if not page.excerpt:
        return None
    first = page.excerpt[0][0]
    options = f'linenums="{first}" hl_lines="{page.entry.source.line - first + 1}"'
    return fence("\n".join(text for _, text in page.excerpt), "python", 0, options)


def render_index(pages: list[EntryPage], rows: Rows | None = None) -> str:
    """Every error in one table, with its verdicts: the page to scan."""
    return _render("errors.md.j2", pages=pages, here=ERRORS_INDEX, **_rows_context("errors.md.j2", rows))


def render_by_exception(pages: list[EntryPage], rows: Rows | None = None) -> str:
    groups: dict[str, list[EntryPage]] = defaultdict(list)
    for page in pages:
        groups[page.entry.exception].append(page)
    return _render("by-exception.md.j2", groups=sorted(groups.items()), here=BY_EXCEPTION,
                   **_rows_context("by-exception.md.j2", rows))


def render_tags(pages: list[EntryPage], rows: Rows | None = None) -> str:
    """A plain tag listing for other engines; in MkDocs, docs/tags.md (Material's tags plugin) wins."""
    groups: dict[str, list[EntryPage]] = defaultdict(list)
    for page in pages:
        for tag in page.entry.tags:
            groups[tag].append(page)
    return _render("tags.md.j2", groups=sorted(groups.items()), here=TAGS, **_rows_context("tags.md.j2", rows))


def render_by_api(pages: list[EntryPage], rows: Rows | None = None) -> str:
    """Entries grouped by class, then by method: `Cache` → `Cache.early_initialization`."""
    classes: dict[str, dict[str, list[EntryPage]]] = defaultdict(lambda: defaultdict(list))
    for page in pages:
        function = page.entry.source.function
        owner = function.rsplit(".", 1)[0] if "." in function else "(module level)"
        classes[owner][function].append(page)
    grouped = [(owner, sorted(methods.items())) for owner, methods in sorted(classes.items())]
    return _render("by-api.md.j2", classes=grouped, here=BY_API, **_rows_context("by-api.md.j2", rows))


def render_verification(pages: list[EntryPage], library: LibraryProfile, reports: list[Report] | None = None,
                        rows: Rows | None = None) -> str:
    """Every check's latest result, the environments they ran in, and when."""
    records = [r for page in pages for r in page.records]
    hashes = {page.entry.id: page.hashes for page in pages}
    devices = runtime_for(library.runtime).devices
    everywhere = {(t, d) for t in library.available_targets for d in devices}  # and whatever a record names
    combos = tuple(sorted({(r.target, r.device) for r in records} | everywhere,
                          key=lambda c: (TARGETS.index(c[0]) if c[0] in TARGETS else 9,
                                         devices.index(c[1]) if c[1] in devices else 9, c)))
    checks = []
    for page in pages:
        for role in page.snippets:
            cells = {(record.target, record.device): record for record in page.records_for(role)}
            checks.append((page, role, [cells.get(combo) for combo in combos]))
    failures = [r for r in records if r.outcome is Outcome.FAIL]
    return _render("verification.md.j2", pages=pages, checks=checks, combos=combos, failures=failures,
                   heat=heat_map(pages, library, VERIFICATION),
                   summary=evidence.summary(records, hashes), environments=evidence.environments(records),
                   reports=reports or [], here=VERIFICATION, is_stale=evidence.is_stale, hashes=hashes,
                   library=library, devices=devices, **_rows_context("verification.md.j2", rows))


def families(library: LibraryProfile) -> dict[str, str]:
    """The heat map's groups: entries by kind, in this order."""
    return {"removed": "Removed or renamed API", "signature": "Calls whose signature changed",
            "raise": f"Raised inside {library.name}"}


@dataclass(frozen=True)
class HeatMap:
    axis: picture.Axis
    groups: list[tuple[str, list[picture.HeatRow]]]  # (family, rows ordered by where they start raising)

    @property
    def states(self) -> list[picture.State]:
        """The states it shows, in the legend's order."""
        shown = {run.state for _, rows in self.groups for row in rows for run in row.runs}
        return [state for state in picture.WORDS if state in shown]

    @property
    def stale(self) -> bool:
        """Whether a release of some row is marked stale (the legend then says what the mark means)."""
        return any(run.stale for _, rows in self.groups for row in rows for run in row.runs)


def heat_map(pages: list[EntryPage], library: LibraryProfile, here: str) -> HeatMap | None:
    """Every entry the version matrix measured, against its releases; None without a matrix."""
    measured = [page for page in pages if page.states]
    if not measured:
        return None
    releases = [one.release for one in measured[0].states]
    names = families(library)
    groups: dict[str, list[picture.HeatRow]] = {kind: [] for kind in names}
    for page in measured:
        row = picture.heat_row(page.entry.id, html_link(here, page.url), page.states,
                               stale=page.versions.stale if page.versions else "",
                               stale_at=page.versions.stale_releases if page.versions else ())
        groups.setdefault(page.entry.kind, []).append(row)
    return HeatMap(picture.axis(releases),
                   [(names.get(kind, kind), sorted(rows, key=lambda row: picture.start_key(row, releases)))
                    for kind, rows in groups.items() if rows])


@dataclass(frozen=True)
class MigrationRow:
    page: EntryPage
    old: str | None  # the removed or renamed name, as the user's code spells it
    gone: str | None  # the first release that raises (measured, "or earlier" at the oldest ran; else declared)
    until: str | None  # the last release where the old code ran (measured, else declared)
    replacement: str | None
    since: str | None


def migration_rows(pages: list[EntryPage]) -> list[MigrationRow]:
    """Entries of a removed or renamed API, or with a replacement, oldest change first."""
    rows = []
    for page in pages:
        entry, measured, declared = page.entry, page.versions, page.entry.releases
        if entry.kind == "raise" and not (declared and declared.replacement):
            continue
        old = f"{entry.api.owner}.{entry.api.name}" if entry.api else None
        # Measured where the matrix ran, else the entry's word, said so: a release no check ran is never shown like one.
        gone = measured.raises.split(" – ")[0].split(",")[0] if measured and measured.raises else \
            (f"{release_words(declared.raises)} (declared)" if declared and declared.raises else None)
        if gone is not None and measured and measured.raises and gone == oldest_tested(page):
            gone += " or earlier"  # it raised in the oldest release the matrix ran: where it went was not seen
        until = (measured.worked_until if measured else None) or \
            (f"{declared.last_good} (declared)" if declared and declared.last_good else None)
        rows.append(MigrationRow(page, old, gone, until, declared.replacement if declared else None,
                                 declared.replacement_since if declared else None))
    return sorted(rows, key=lambda row: (_release_key(row.gone), row.page.entry.id))


def _release_key(text: str | None) -> tuple[int, ...]:
    found = re.search(r"\d+(\.\d+)*", text or "")
    return tuple(int(part) for part in found.group().split(".")) if found else (9999,)


def render_migration(pages: list[EntryPage], library: LibraryProfile) -> str:
    """Every removed or renamed name and its verified replacement, with the release it went away in."""
    rows = migration_rows(pages)
    return _render("migration.md.j2", rows=rows, library=library, here=MIGRATION, shown=shown_badges,
                   timeline=timeline(rows, MIGRATION))


def timeline(rows: list[MigrationRow], here: str) -> HeatMap | None:
    """The removals against the releases, oldest first, each marked where its replacement arrived."""
    measured = [row for row in rows if row.page.states]
    if not measured:
        return None
    releases = [one.release for one in measured[0].page.states]
    lines = []
    for row in measured:
        replacement = reading_title(row.replacement) if row.replacement else None
        mark = f"the replacement arrives in {row.since}{': ' + replacement if replacement else ''}" if row.since else ""
        lines.append(picture.heat_row(row.old or row.page.entry.id, html_link(here, row.page.url), row.page.states,
                                      row.since, mark, row.page.versions.stale if row.page.versions else "",
                                      row.page.versions.stale_releases if row.page.versions else ()))
    return HeatMap(picture.axis(releases), [("", lines)])


def render_coverage(table: Coverage, pages: list[EntryPage]) -> str:
    """The coverage page: the same tables as `errorkb coverage`, with links to the entries, each with where it stands
    (`evidence.standing`): an entry names a raise site (documented) whether or not its checks passed (verified), and
    the page counts the two apart."""
    titles = {page.entry.id: page.entry.title for page in pages}
    urls = {page.entry.id: page.url for page in pages}
    standing = coverage_standing(pages)
    counts = {id(one): coverage_counts(one, standing) for one in table.files}
    return _render("coverage.md.j2", table=table, titles=titles, urls=urls, here=COVERAGE, standing=standing,
                   counts=lambda one: counts[id(one)])


def coverage_standing(pages: list[EntryPage]) -> dict[str, evidence.Badge]:
    """Entry id → the badge that says where it stands (`evidence.standing`): what the coverage page shows of each
    entry, and so what must change for `mkdocs serve` to make the page again."""
    return {page.entry.id: found for page in pages if (found := evidence.standing(badges(page))) is not None}


@dataclass(frozen=True)
class CoverageCounts:
    """One file's figures, as the coverage page and `errorkb coverage` both say them: raise sites documented (an
    entry names them), and of those verified (an entry naming them stands verified: `Badge.verified`)."""

    documented: int
    verified: int
    implicit: int  # errors raised by Python or the runtime inside the file, documented
    implicit_verified: int


def coverage_counts(one: FileCoverage, standing: dict[str, evidence.Badge]) -> CoverageCounts:
    """The figures of one file of `errorkb.source.coverage` (`standing`: `coverage_standing`): the one place they
    are counted, so the page and the terminal never disagree."""

    def verified(ids: typing.Iterable[str]) -> bool:
        return any((found := standing.get(entry)) is not None and found.verified for entry in ids)

    return CoverageCounts(one.documented, sum(1 for row in one.rows if verified(row.entries)), len(one.implicit),
                          sum(1 for entry in one.implicit if verified([entry])))


def is_verified(page: EntryPage) -> bool:
    """Whether an entry counts as verified wherever a count of verified entries is said (the list of errors, the
    home page): a fresh pass of all its snippets on at least one target and device (`Badge.verified`)."""
    return any(b.verified for b in badges(page))


def verified_count(pages: typing.Iterable[EntryPage]) -> int:
    return sum(1 for page in pages if is_verified(page))


def render_problems(where: str, problems: list[Problem], lines: dict[int, str]) -> str:
    """The page shown at a broken entry's address: each problem, then the YAML lines around it
    (in fences, which escape everything; the problem text is inert)."""
    quoted = []
    for problem in problems:
        first, last = max(problem.line - 2, 1), problem.line + 2
        shown = [(n, lines[n]) for n in range(first, last + 1) if n in lines]
        width = len(str(last))
        code = "\n".join(f"{'>' if n == problem.line else ' '} {n:>{width}} | {text}" for n, text in shown)
        quoted.append((problem, code))
    return _render("problems.md.j2", where=where, problems=quoted)


# -- JSON -------------------------------------------------------------------------------------


def entry_document(page: EntryPage) -> dict[str, object]:
    """The JSON API's view of one entry: the entry itself, its snippets and its evidence."""
    entry = page.entry
    return {
        **entry.model_dump(mode="json"),
        "url": site_url(entry),
        "source_url": entry.source_url,
        "snippets": {role: {"file": page.snippet_paths[role], "sha256": s.sha256, "code": s.full}
                     for role, s in page.snippets.items()},
        "badges": [_badge_json(b) for b in badges(page)],
        "versions": _versions_json(page.versions) if page.versions else None,
        "verification": [
            record.model_dump(mode="json", include={"id", "role", "target", "device", "outcome", "code", "reason",
                                                    "claim", "verified_at", "snippet_sha256", "environment",
                                                    "device_basis", "verifier", "errorkb"})
            | {"stale": page.is_stale(record), "stale_why": STALE_WHY if page.is_stale(record) else None}
            # A check that did not run was verified at no time (its badge carries no date): never a time here.
            | ({} if record.outcome.ran else {"verified_at": None})
            for record in page.records
        ],
    }


def _versions_json(versions: VersionRange) -> dict[str, object]:
    """What the version matrix measured, as the page says it: a stored reason without the machine's folders."""
    found = dataclasses.asdict(versions)
    for name in ("fixed_reason", "not_run"):
        if isinstance(found.get(name), str):
            found[name] = unrooted(found[name])
    return found


def _badge_json(badge: evidence.Badge) -> dict[str, object]:
    return {"target": badge.target, "device": badge.device, "outcome": badge.outcome, "stale": badge.stale,
            "verified": badge.verified,  # the site's rule, so no client reads a stale pass's outcome as verified
            "date": badge.date, "detail": badge.detail, "versions": badge.versions,
            "verifiers": list(badge.verifiers), "on_object": badge.on_object}


def index_document(pages: list[EntryPage], library: LibraryProfile, rows: Rows | None = None) -> dict[str, object]:
    """What the lookup box needs for every entry, in one small file. Schema 1's fields stay;
    `wordings`, `raises_in`, `last_good`, `replacement`, `replacement_since` and `lines` were
    added beside them (`lookup.index_fields`), and `library` and `generic` (the wordings every
    error of a kind shares, Python's and the runtime's) beside the entries; readers tolerate
    their absence."""
    generic = [*GENERIC_WORDINGS, *runtime_for(library.runtime).generic_messages]
    classes = library_classes(library) if uses_user_types(p.entry for p in pages) else ""
    return {
        "schema": 1,
        "library": {"name": library.name, "repository": library.repository, "release": library.release,
                    "distribution": library.dist, "classes": classes},
        "generic": generic,
        "stale_why": STALE_WHY,  # what the paste box says beside a stale badge
        "outcomes": badge_words(library),  # and what its badges say: the page's words, never a copy in the script
        "rules": rules_document(generic),
        "runtime": {"packages": beneath_library(library, runtime_for(library.runtime).packages)},
        "entries": [rows.get(p, ("index",), functools.partial(_index_entry, p, library)) if rows
                    else _index_entry(p, library) for p in pages],
    }


def shown_json(one: Shown) -> dict[str, object]:
    """A badge as the page shows it (`shown_badges`), for the paste box's chips: the page's fold and its words,
    shipped as data, so a chip never says a reason twice where the page says it once."""
    return {"outcome": one.outcome, "where": one.where, "label": one.label, "icon": one.icon, "stale": one.stale,
            "date": one.date, "folded": one.folded, "said": one.said if one.folded else ""}


def badge_words(library: LibraryProfile) -> dict[str, dict[str, typing.Any]]:
    """What a badge says of each outcome, in words and as an icon, and what each target is (`target_words`):
    the paste box's chips read these from the index, so a chip and the page's badge never disagree (an
    outcome the script did not know once showed as '?')."""
    return {"words": dict(evidence.OUTCOME_WORDS), "icons": dict(evidence.ICONS), "targets": target_words(library)}


def _index_entry(p: EntryPage, library: LibraryProfile) -> dict[str, object]:
    return {"id": p.entry.id, "title": p.entry.title, "exception": p.entry.exception,
            "message": p.entry.message, "function": p.entry.source.function, "library": p.entry.library,
            "origin": list(p.entry.origin),
            "url": site_url(p.entry), "tags": p.entry.tags,
            # `verified`: the site's rule (`Badge.verified`), so no client of the index reads a stale pass as verified
            "badges": [{"target": b.target, "device": b.device, "outcome": b.outcome, "stale": b.stale,
                        "verified": b.verified, "date": b.date,
                        **({"basis": evidence.ON_OBJECT} if b.on_object else {})}
                       for b in badges(p)],
            "shown": [shown_json(one) for one in shown_badges(p)],
            **index_fields(p.entry, dict(p.versions.by_release) if p.versions else None,
                           installed_path(library, p.entry.source.path))}
