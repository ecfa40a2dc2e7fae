"""An entry in a terminal (`errorkb show`, `errorkb lookup` with one hit), and the nearest
entries when a lookup finds none.

The same facts as the entry's page, in the order a person in trouble reads them: the message,
what it means, the fix (the after snippet's shown section, with its own verdict), where it was verified (per
target × device, from the standing report), what releases do, and the page's address. Built as
rich renderables; every string from an entry goes through `clean` first (control characters
out: entry text comes from strangers' pull requests), and rich markup is never parsed from it.
A link in an entry's Markdown prints as `label (target)`, never as a terminal hyperlink (OSC 8),
whose label could name one address while it opens another.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.markdown import Markdown
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from errorkb.core.entry import Entry
from errorkb.core.load import LoadResult
from errorkb.core.logsafe import strip_controls
from errorkb.core.project import Project
from errorkb.core.snippets import AFTER
from errorkb.core.words import release_words
from errorkb.lookup import since_words
from errorkb.plugs import runtime_for
from errorkb.results.keys import STALE_WHY
from errorkb.results.records import unrooted
from errorkb.results.report import latest_results, read_reports
from errorkb.site import evidence, render

NEAREST = 3


def clean(text: str) -> str:
    """`text` without escape sequences and control characters (tabs and newlines kept)."""
    return strip_controls(text)


def page_address(project: Project, entry: Entry) -> str:
    """The entry page's address: under the site's `site_url` when known, else site-relative."""
    return f"{project.site_url or ''}{render.site_url(entry)}"


def entry_pages(project: Project, loaded: LoadResult) -> list[render.EntryPage]:
    """Every entry's page model with the standing report's records and the version matrix's ranges."""
    reports, _ = read_reports(project.reports, runtime_for(project.library.runtime).devices)
    pages = render.build_pages(project, loaded.entries, latest_results(reports))
    from errorkb.site.files import version_ranges

    ranges = version_ranges(project, pages)
    for page in pages:
        page.versions = ranges.get(page.entry.id)
    return pages


def entry_view(project: Project, page: render.EntryPage) -> RenderableType:
    """The whole entry, for `errorkb show`."""
    entry = page.entry
    parts: list[RenderableType] = [
        Text(f"{entry.exception}: {clean(entry.message)}", style="bold red"),
        Text(""),
        Markdown(clean(entry.meaning), hyperlinks=False),  # "label (target)": a label never hides its target
        Text(""),
        Text("The fix", style="bold"),
        _fix(page),
        Text(""),
        Text("Verification", style="bold"),
        _verification(page),
        Text(""),
        Text("Releases", style="bold"),
        _releases(page),
    ]
    if page.related:
        parts += [Text(""), Text("Related: " + ", ".join(other.id for other in page.related))]
    parts += [Text(""), Text(f"page: {page_address(project, entry)}")]
    return Panel(Group(*parts), title=Text(clean(entry.title), style="bold"), subtitle=Text(entry.id),
                 title_align="left", subtitle_align="right")


def _fix(page: render.EntryPage) -> RenderableType:
    snippet = page.snippets.get(AFTER)
    heading = clean(page.entry.solutions[0].title)
    if snippet is None:
        return Text(f"{heading}\n(the after snippet is missing)")
    verdict = evidence.role_verdict(page.records, AFTER, page.hashes)
    fresh_pass = verdict.outcome == "pass" and not verdict.stale
    note = Text(f"{heading}\n  {verdict.words}: {verdict.detail}",
                style="green" if fresh_pass else "red" if verdict.outcome == "fail" else "yellow")
    return Group(note, Syntax(clean(snippet.shown).rstrip("\n"), "python", theme="ansi_dark", word_wrap=True))


def _verification(page: render.EntryPage) -> RenderableType:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("target", "device", "result", "checked", "why"):
        table.add_column(column)
    # Each target in a reader's words, as the page names it ('bundled' and 'upstream' are the verifier's).
    named = render.target_words(page.library)
    for badge in render.badges(page):
        # Green only for what every count of verified counts (`Badge.verified`): a stale pass is no pass of these files.
        style = "green" if badge.verified else "red" if badge.outcome == "fail" else "yellow"
        why = "; ".join(part for part in (badge.detail, badge.versions) if part)
        table.add_row(named.get(badge.target, {}).get("name", badge.target), badge.device,
                      Text(f"{badge.icon} {badge.label}", style=style),
                      badge.date or "—", Text(clean(why)))
    return table


def _releases(page: render.EntryPage) -> RenderableType:
    entry, measured = page.entry, page.versions
    declared = entry.releases
    rows: list[tuple[str, str]] = []
    if declared and declared.raises:
        rows.append(("raises in (declared)", release_words(declared.raises)))
    # What the page's Versions section says of the matrix (entry.md.j2), its staleness included: a range measured on
    # other inputs than the files now is said so, and a matrix that ran without a raise, or could not run, says that.
    if measured and measured.not_run:
        rows.append(("not run by the version matrix", unrooted(measured.not_run)))
    elif measured and measured.raises:
        rows.append(("raises in (measured)", f"{measured.raises} ({measured.tested} releases ran)"))
    elif measured and measured.tested:
        rows.append(("raises in (measured)", f"none of the {measured.tested} releases tested"))
    if measured and measured.stale:
        rows.append(("stale", f"the matrix's results are stale {measured.stale}: {STALE_WHY}"))
    until = (measured.worked_until if measured else None) or (declared.last_good if declared else None)
    if until:
        rows.append(("worked until", until))
    if declared and declared.replacement:
        rows.append(("replacement", declared.replacement + since_words(declared.replacement,
                                                                       declared.replacement_since)))
    if measured and measured.fixed_in:
        rows.append(("fixed in", measured.fixed_in))
    if entry.source.release:
        owner = f"{entry.source_owner} " if entry.source_owner else ""  # a raise site in the runtime
        rows.append(("pinned", f"{owner}{entry.source.release}: {entry.source.path}:{entry.source.line} "
                               f"({entry.source.function})"))
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="dim")
    table.add_column()
    for name, value in rows:
        table.add_row(name, Text(clean(value)))
    return table


@dataclass(frozen=True)
class Near:
    entry: Entry
    score: float


def nearest(text: str, entries: list[Entry], count: int = NEAREST) -> list[Near]:
    """The entries whose message or title read most like `text` (difflib's ratio over the last
    lines of the paste, where the message is; the paste is cut to 2,000 characters first, so
    the work stays bounded whatever was pasted)."""
    tail = clean(text)[-2000:].strip()
    lines = [line.strip() for line in tail.splitlines() if line.strip()][-3:] or [tail]
    scored = []
    for entry in entries:
        best = 0.0
        for candidate in (entry.message, entry.title, *(w.message for w in entry.also_seen_as)):
            for line in lines:
                matcher = difflib.SequenceMatcher(None, line.split(": ", 1)[-1][:500], candidate[:500],
                                                  autojunk=False)
                best = max(best, matcher.quick_ratio() and matcher.ratio())
        scored.append(Near(entry, best))
    scored.sort(key=lambda near: (-near.score, near.entry.id))
    return scored[:count]
