"""The search index of a changed page, under `mkdocs serve`, without parsing again the rows that
the last build of that page parsed.

Material's search indexes a page by feeding its whole HTML to its parser (`Parser`, an
`html.parser.HTMLParser`), which splits it into sections at the headings; each section's text is
the list of the pieces its handlers append. At 1,000 entries the pages that list every entry hold
0.5-1.6 MB of HTML, and a save that changes one row of them (a title, a record) had each parsed
again whole: most of such a rebuild.

`SearchRows.index` is Material's `SearchIndex.add_entry_from_context` with one change: the parser
is fed the page up to each row of its tables and lists (`row_spans`: an element `<tr>...</tr>`
or `<li>...</li>` with no other of its tag inside), and a row met
before in the same state takes the pieces it appended then instead of being parsed. What a row
appends depends on the row and on what the handlers read of the state before it, which is the
key it is kept under (`_state`): the open elements, the skipped ones, the current section's
heading and depth, and whether that section's text ends in white space. A row is kept only when
it is parsed alone, from that state and an empty history, and

- it leaves the parser as it found it (the same open and skipped elements, the same section, no
  new section, nothing added to a title, nothing left unparsed), and
- it removes nothing already there: Material's closing of a kept element (`</li>`, `</code>`)
  searches the section for the first opening of that tag and, when only white space follows it,
  removes it all; a row whose elements all hold text never does, whatever came before it, while
  one with an empty element (whose outcome depends on what came before) is never kept and is
  parsed in place, every build.

Everything else (the text between the rows, the rows not kept, new rows) is fed to the parser as
Material feeds it; a row is replayed only where the parser has consumed all it was fed.
The index is the one Material makes of the page, entry for entry (tests/site/test_search_rows.py).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Any

from material.plugins.search.plugin import Element, Parser, SearchIndex, Section

Key = tuple[str, tuple[Any, ...]]


@dataclass
class SearchRows:
    """Per page URL, the pieces each row appended to its section's text when the last build of
    that page indexed it (None: a row that cannot be replayed), by `Key`."""

    pages: dict[str, dict[Key, tuple[str, ...] | None]] = field(default_factory=dict)
    parsed: int = 0  # the rows parsed (not replayed) since the last `install`

    def install(self, config: Any) -> None:
        """Indexes the pages of this build through `index`: Material's search makes its index
        anew on every build (`on_config`), so this is done on every build, after that."""
        self.parsed = 0
        for name in ("material/search", "search"):
            plugin = config.plugins.get(name)
            search_index: Any = getattr(plugin, "search_index", None)
            if type(search_index) is SearchIndex:  # Material's own, whose method this replaces
                # by a weak reference: the index holding a function that holds the index would be a
                # cycle, and under `mkdocs serve` each build's index (every page's text) garbage that
                # only a full collection frees (`live.Survivors` freezes it first: never)
                index = weakref.ref(search_index)
                search_index.add_entry_from_context = lambda page, index=index: self.index(index(), page)
                return

    def index(self, search_index: Any, page: Any) -> None:
        """`SearchIndex.add_entry_from_context(page)` (Material 9), its parser fed by `parse`."""
        search = page.meta.get("search") or {}
        if search.get("exclude"):
            return
        parser = self.parse(page.url, page.content)
        for section in parser.data:
            if not section.is_excluded():
                search_index.create_entry_for_section(section, page.toc, page.url, page)

    def parse(self, url: str, html: str) -> Any:
        """Material's parser after `feed(html)` and `close()`, the rows that the last parse of
        `url` kept taken from there; the rows kept for the next are this parse's."""
        known = self.pages.get(url, {})
        used: dict[Key, tuple[str, ...] | None] = {}
        parser = Parser()
        at = 0
        for start, end in row_spans(html):
            if start < at:
                continue
            parser.feed(html[at:start])
            at = start
            if parser.rawdata or parser.cdata_elem is not None or parser.section is None:
                continue  # not between two elements: the row is fed with what follows
            row = html[start:end]
            key = (row, _state(parser))
            pieces = known[key] if key in known else used[key] if key in used else self._record(parser, row)
            used[key] = pieces
            if pieces is not None:
                parser.section.text.extend(pieces)
                at = end
        parser.feed(html[at:])
        parser.close()
        self.pages[url] = used
        return parser

    def _record(self, parser: Any, row: str) -> tuple[str, ...] | None:
        """The pieces `row` appends to the section's text, parsed alone from `parser`'s state
        with no history; None when what it does could depend on that history or changes more
        than the section's text (see the module's docstring)."""
        self.parsed += 1
        last_space = bool(parser.section.text) and parser.section.text[-1].isspace()
        section = Section(parser.section.el, parser.section.depth)
        section.text = [" " if last_space else "x"]  # not an opening: no closing can reach back to it
        probe = _Probe()
        probe.context, probe.skip = list(parser.context), set(parser.skip)
        probe.data, probe.section = [Section(Element("hx")), section], section
        probe.feed(row)
        same = (not probe.rawdata and probe.cdata_elem is None and not probe.shrunk
                and probe.section is section and len(probe.data) == 2 and not section.title
                and _same(probe.context, parser.context) and _same(probe.skip, parser.skip))
        return tuple(section.text[1:]) if same else None  # a tuple of strings: not tracked by the GC


def _state(parser: Any) -> tuple[Any, ...]:
    """What the parser's handlers read of its state before a row, besides the pieces the row's own
    elements append: its open elements (tags, attributes), the tags it skips, the current section's
    heading and depth, and whether that section's text ends in white space."""
    text = parser.section.text
    return (tuple((element.tag, tuple(element.attrs.items())) for element in parser.context),
            tuple(sorted(getattr(one, "tag", one) for one in parser.skip)),
            parser.section.el.tag, parser.section.depth, bool(text) and text[-1].isspace())


def _same(mine: Any, theirs: Any) -> bool:
    """The same objects (Material's elements compare equal by tag alone)."""
    return sorted(map(id, mine)) == sorted(map(id, theirs)) if isinstance(mine, set) else \
        len(mine) == len(theirs) and all(a is b for a, b in zip(mine, theirs, strict=True))


def row_spans(html: str) -> list[tuple[int, int]]:
    """(start, end) of every row of `html`, in order: each `<tr>...</tr>` and `<li>...</li>` (as
    Python-Markdown and Material's tags listing write them: no attributes) holding no opening of
    its own tag, and the newline after it; a row inside another is left to be fed with it. Which
    spans are rows decides only what may be replayed: `SearchRows` keeps none that does not
    parse alone as it does in place."""
    spans = []
    for tag in ROW_TAGS:
        opening, closing = f"<{tag}>", f"</{tag}>"
        at = 0
        while (start := html.find(opening, at)) >= 0:
            end = html.find(closing, start)
            if end < 0:
                break
            at = start + len(opening)
            if html.find(f"<{tag}", at, end) < 0:
                end += len(closing)
                spans.append((start, end + 1 if html.startswith("\n", end) else end))
    spans.sort()
    return [span for i, span in enumerate(spans) if i == 0 or span[0] >= spans[i - 1][1]]


ROW_TAGS = ("tr", "li")


class _Probe(Parser):  # type: ignore[misc]
    """Material's parser, noting whether a closing ever removed pieces of a section's text or title."""

    shrunk = False

    def handle_endtag(self, tag: str) -> None:
        section = self.section
        text, title = len(section.text), len(section.title)
        super().handle_endtag(tag)
        if len(section.text) < text or len(section.title) < title:
            self.shrunk = True
