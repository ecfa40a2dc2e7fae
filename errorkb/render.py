"""Entries + verification reports → Markdown pages and JSON documents.

Plain functions with no MkDocs in sight: the plugin calls them during a build, and
`errorkb render --out DIR` writes the same pages for any other static-site engine. The
Markdown uses only admonitions, content tabs and fences, which Material and its successors
both understand. Nothing here imports torch or runs a snippet: pages show what a report says.
"""

from __future__ import annotations

import hashlib
import html
import importlib.metadata
import importlib.util
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from errorkb.entry import Entry, library_folder
from errorkb.load import LoadedEntry
from errorkb.message import Placeholder
from errorkb.project import Project

TEMPLATES = Path(__file__).parent / "templates"
SHOW_START = re.compile(r"^\s*# --8<-- \[start:show\]\s*$")
SHOW_END = re.compile(r"^\s*# --8<-- \[end:show\]\s*$")
MARKER = re.compile(r"^\s*# --8<-- \[(start|end):[a-z][-_0-9a-z]*\]\s*$", re.IGNORECASE)


@dataclass
class Snippet:
    role: str
    file: str
    path: str  # relative to the project root, for links and messages
    full: str  # the file without section markers
    shown: str  # the `show` section, or the whole file
    sha256: str


@dataclass
class Badge:
    target: str
    device: str
    outcome: str  # pass | fail | not-run | unverified
    stale: bool
    date: str | None
    detail: str
    versions: str = ""


@dataclass
class EntryPage:
    entry: Entry
    yaml_path: str
    snippets: dict[str, Snippet]
    records: list[dict]  # latest verification record of each check of this entry
    related: list[Entry] = field(default_factory=list)
    excerpt: list[tuple[int, str]] | None = None

    @property
    def url(self) -> str:
        return page_path(self.entry)

    def records_for(self, role: str) -> list[dict]:
        return [r for r in self.records if r["role"] == role]

    def is_stale(self, record: dict) -> bool:
        snippet = self.snippets.get(record["role"])
        return snippet is None or snippet.sha256 != record.get("snippet_sha256")


def page_path(entry: Entry) -> str:
    """Where an entry's page lives in the site, as a docs-relative Markdown path."""
    return f"errors/{library_folder(entry.library)}/{entry.id}.md"


def read_snippet(project: Project, entry: Entry, role: str, file: str) -> Snippet:
    path = project.snippet_path(entry.id, file)
    raw = path.read_text(encoding="utf-8")
    return Snippet(role, file, project.rel(path), strip_markers(raw), shown_section(raw),
                   hashlib.sha256(raw.encode("utf-8")).hexdigest())


def shown_section(text: str) -> str:
    """The lines between the `show` markers (dedented), or the whole file without markers."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if SHOW_START.match(line)), None)
    end = next((i for i, line in enumerate(lines) if SHOW_END.match(line)), None)
    if start is None or end is None or end <= start:
        return strip_markers(text)
    return textwrap.dedent("\n".join(lines[start + 1 : end])).strip("\n") + "\n"


def strip_markers(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not MARKER.match(line)).strip("\n") + "\n"


def build_pages(project: Project, loaded: list[LoadedEntry], results: dict[str, dict]) -> list[EntryPage]:
    by_id = {one.entry.id: one.entry for one in loaded}
    pages = []
    for one in sorted(loaded, key=lambda item: item.entry.id):
        entry = one.entry
        snippets = {}
        for role, file in entry.snippet_files():
            try:
                snippets[role] = read_snippet(project, entry, role, file)
            except OSError:
                continue  # reported by the loader; the page shows the snippet as missing
        records = sorted((r for r in results.values() if r["entry"] == entry.id), key=lambda r: r["id"])
        pages.append(EntryPage(entry, project.rel(one.path), snippets, records,
                               [by_id[i] for i in entry.related if i in by_id], source_excerpt(entry)))
    return pages


# -- badges and evidence ----------------------------------------------------------------------


def badges(page: EntryPage, targets: tuple[str, ...] = ("bundled", "upstream"),
           devices: tuple[str, ...] = ("cpu", "cuda")) -> list[Badge]:
    """One badge per target × device: pass only when every snippet's check passed."""
    result = []
    roles = list(page.snippets)
    for target in targets:
        for device in devices:
            records = [r for r in page.records if r["target"] == target and r["device"] == device]
            by_role = {r["role"]: r for r in records}
            if not records:
                if target == "bundled":
                    result.append(Badge(target, device, "unverified", False, None, "no verification report yet"))
                continue
            outcomes = {by_role[role]["outcome"] if role in by_role else "unverified" for role in roles}
            if "fail" in outcomes:
                outcome = "fail"
            elif outcomes == {"pass"}:
                outcome = "pass"
            elif outcomes == {"not-run"}:
                outcome = "not-run"
            else:
                outcome = "unverified"
            stale = any(page.is_stale(r) for r in records if r["outcome"] != "not-run")
            dates = sorted(r.get("verified_at", "")[:10] for r in records if r.get("verified_at"))
            reasons = sorted({r["reason"] for r in records if r["outcome"] in {"fail", "not-run"}})
            detail = "; ".join(reasons) if reasons else f"{len(records)} checks"
            result.append(Badge(target, device, outcome, stale, dates[-1] if dates else None, detail,
                                _versions(records)))
    return result


def _versions(records: list[dict]) -> str:
    env = next((r.get("environment") or {} for r in records if r.get("environment")), {})
    parts = [f"{name} {env[name]}" for name in ("transformers", "torch", "python") if env.get(name)]
    return ", ".join(parts)


def captured_error(page: EntryPage) -> dict | None:
    """The before snippet's error as verification captured it; upstream first, fresh first."""
    candidates = [r for r in page.records_for("before") if r["outcome"] == "pass" and r.get("exception")]
    candidates.sort(key=lambda r: (page.is_stale(r), r["target"] != "upstream", r["device"] != "cpu"))
    return candidates[0] if candidates else None


def source_excerpt(entry: Entry, before: int = 8, after: int = 4) -> list[tuple[int, str]] | None:
    """Lines around the raise, read from the installed upstream release when it is the pinned one."""
    if entry.source.release is None or importlib.util.find_spec(entry.library.split("/")[-1]) is None:
        return None
    package = entry.library.split("/")[-1]
    try:
        if importlib.metadata.version(package) != entry.source.release:
            return None
        spec = importlib.util.find_spec(package)
    except (importlib.metadata.PackageNotFoundError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    inside = entry.source.path.removeprefix("src/").removeprefix(f"{package}/")
    path = Path(next(iter(spec.submodule_search_locations))) / inside
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    first = max(entry.source.line - before, 1)
    last = min(entry.source.line + after, len(lines))
    return [(number, lines[number - 1]) for number in range(first, last + 1)]


# -- Markdown ---------------------------------------------------------------------------------

_CODE = re.compile(r"(```.*?```|`+[^`]*`+)", re.DOTALL)


def inert(markdown: str) -> str:
    """Markdown with raw HTML neutralised: `<` outside code becomes text, so a `<script>` in an
    entry is shown, never run. Code spans and fences are left as written."""
    pieces = _CODE.split(markdown)
    return "".join(piece if index % 2 else piece.replace("&", "&amp;").replace("<", "&lt;")
                   for index, piece in enumerate(pieces))


def marked_message(entry: Entry) -> str:
    """The template as HTML, placeholders wrapped so the page can show them as slots."""
    out = []
    for part in entry.template.parts:
        if isinstance(part, Placeholder):
            out.append(f'<span class="ekb-slot" title="filled in at run time">{{{html.escape(part.expression)}}}</span>')
        else:
            out.append(html.escape(part.text))
    return "".join(out)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=False,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                             undefined=jinja2.StrictUndefined)
    env.filters["inert"] = inert
    env.filters["esc"] = html.escape
    env.filters["fence"] = fence
    return env


def fence(code: str, language: str = "python", indent: int = 0) -> str:
    """A fenced block long enough to hold any backticks in `code`, indented for tabs."""
    ticks = "`" * max(3, max((len(m) for m in re.findall(r"`+", code)), default=0) + 1)
    block = f"{ticks}{language}\n{code.rstrip()}\n{ticks}"
    return textwrap.indent(block, " " * indent)


def render_entry(page: EntryPage, *, edit_url: str | None = None) -> str:
    """The entry's page; links are relative, so it works under any site root."""
    template = _environment().get_template("entry.md.j2")
    return template.render(page=page, entry=page.entry, badges=badges(page), captured=captured_error(page),
                           message_html=marked_message(page.entry), api=f"../../{api_path(page.entry)}",
                           library_folder=library_folder, edit_url=edit_url)


def api_path(entry: Entry) -> str:
    return f"api/errors/{entry.id}.json"


def render_index(pages: list[EntryPage]) -> str:
    template = _environment().get_template("index.md.j2")
    return template.render(pages=pages, badges=badges)


def entry_document(page: EntryPage) -> dict:
    """The JSON API's view of one entry: the entry itself, its snippets and its evidence."""
    entry = page.entry
    return {
        **entry.model_dump(mode="json"),
        "url": page.url.removesuffix(".md") + "/",
        "source_url": entry.source_url,
        "snippets": {role: {"file": s.path, "sha256": s.sha256, "code": s.full} for role, s in page.snippets.items()},
        "verification": [
            {key: record.get(key) for key in ("id", "role", "target", "device", "outcome", "reason",
                                              "verified_at", "snippet_sha256", "environment")}
            | {"stale": page.is_stale(record)}
            for record in page.records
        ],
    }


def index_document(pages: list[EntryPage]) -> dict:
    """What the lookup box needs for every entry, in one small file."""
    return {
        "entries": [
            {"id": p.entry.id, "title": p.entry.title, "exception": p.entry.exception,
             "message": p.entry.message, "function": p.entry.source.function, "library": p.entry.library,
             "url": p.url.removesuffix(".md") + "/", "tags": p.entry.tags}
            for p in pages
        ]
    }
