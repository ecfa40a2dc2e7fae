"""`errorkb.site.searchrows`: the search index of a changed page, its unchanged rows not parsed
again, is the one Material's parser makes of the whole page, section for section."""

from __future__ import annotations

import pytest
from material.plugins.search.plugin import Parser

from errorkb.site.searchrows import SearchRows, row_spans


def material(html: str) -> list[tuple[object, ...]]:
    parser = Parser()
    parser.feed(html)
    parser.close()
    return sections(parser)


def sections(parser: Parser) -> list[tuple[object, ...]]:
    return [(one.el.tag, one.id, one.depth, "".join(one.title), "".join(one.text), one.is_excluded())
            for one in parser.data]


def page(rows: list[str], items: list[str], before: str = "", after: str = "") -> str:
    table = "".join(f"<tr>\n<td><a href=\"e/\">{row}</a></td>\n<td><code>ValueError</code></td>\n</tr>\n"
                    for row in rows)
    listing = "".join(f"<li>{item}</li>\n" for item in items)
    return (f"<h1 id=\"all\">All<a class=\"headerlink\" href=\"#all\">¶</a></h1>\n<p>Some <em>text</em>.</p>\n"
            f"{before}<table>\n<thead>\n<tr>\n<th>Error</th>\n<th>Code</th>\n</tr>\n</thead>\n<tbody>\n{table}</tbody>\n"
            f"</table>\n<h2 id=\"more\">More</h2>\n<ul>\n{listing}</ul>\n{after}<p>End.</p>")


ROWS = [f"Error {i}: a &amp; b" for i in range(40)]
ITEMS = [f"<a href=\"x{i}/\">Item {i}</a> — <code>ValueError</code>" for i in range(30)]


def test_a_page_parsed_again_parses_only_its_new_rows_and_indexes_as_material_does():
    memo = SearchRows()
    first = page(ROWS, ITEMS)
    assert sections(memo.parse("p/", first)) == material(first)
    assert memo.parsed == 1 + len(ROWS) + len(ITEMS)  # nothing known: every row (and the head's) parsed

    changed_rows = [*ROWS[:3], "Error 3: RETITLED", *ROWS[4:10], *ROWS[11:], "Error 40: ADDED"]
    changed = page(changed_rows, [*ITEMS[:5], "<a href=\"x5/\">CHANGED</a>", *ITEMS[6:]])
    memo.parsed = 0
    assert sections(memo.parse("p/", changed)) == material(changed)
    assert memo.parsed == 3  # the retitled row, the added row, the changed item

    memo.parsed = 0
    assert sections(memo.parse("p/", changed)) == material(changed)
    assert memo.parsed == 0
    memo.parsed = 0
    assert sections(memo.parse("other/", changed)) == material(changed)  # kept by page: another parses all
    assert memo.parsed == 1 + len(changed_rows) + len(ITEMS)


@pytest.mark.parametrize("where", [
    pytest.param(("<div data-search-exclude>\n", "</div>\n"), id="rows inside an excluded block"),
    pytest.param(("<pre>\n", "</pre>\n"), id="rows inside pre (white space kept)"),
    pytest.param(("<blockquote>\n<h2 id=\"inner\">Inner</h2>\n", "</blockquote>\n"), id="rows in a nested section"),
])
def test_a_row_met_again_in_another_state_is_not_taken_from_the_first(where):
    """The same rows, the second time inside an element that changes what the parser makes of
    them: a memo by the row's HTML alone would give the first parse's pieces."""
    memo = SearchRows()
    items = [f"<a href=\"x{i}/\">Item\n{i}</a>" for i in range(5)]
    plain = page(ROWS[:5], items)
    assert sections(memo.parse("p/", plain)) == material(plain)
    opening, closing = where
    wrapped = plain.replace("<ul>\n", f"{opening}<ul>\n").replace("</ul>\n", f"</ul>\n{closing}")
    assert sections(memo.parse("p/", wrapped)) == material(wrapped)
    assert sections(memo.parse("p/", plain)) == material(plain)


@pytest.mark.parametrize("row", [
    pytest.param("<code> </code>", id="an empty kept element (Material removes it, or not, by what came before)"),
    pytest.param(" ", id="an empty item"),
    pytest.param("<h3 id=\"in-a-row\">A heading</h3>", id="a heading: a new section"),
    pytest.param("<span data-search-exclude>hidden</span> shown", id="an excluded element"),
    pytest.param("<script>var a = '</li>';</script>after", id="a script (skipped for good)"),
    pytest.param("<h2>no id</h2> text", id="the section's heading tag, without an id (its title)"),
    pytest.param("<p>open", id="an element left open"),
    pytest.param("a &amp", id="a character reference cut short"),
    pytest.param("<!-- an unclosed comment", id="a comment left open (the parser holds the rest back)"),
])
def test_rows_whose_parse_depends_on_what_came_before_are_parsed_in_place(row):
    """Rows Material's parser does not treat alone: each index equals Material's, before and
    after the rows around them change, whatever came before them."""
    memo = SearchRows()
    for before in ("", "<ul>\n<li><code>x</code> y</li>\n</ul>\n", "<ul>\n<li><code> </code></li>\n</ul>\n"):
        for items in ([row, *ITEMS[:3]], [*ITEMS[:2], row, row, *ITEMS[2:4]], [*ITEMS[:1], "changed", row]):
            html = page(ROWS[:3], items, before=before, after=f"<ul>\n<li>{row}</li>\n</ul>\n")
            assert sections(memo.parse("p/", html)) == material(html), (before, items)


def test_row_spans_are_the_rows_and_items_holding_no_other_of_their_tag():
    html = ("<ul>\n<li>a</li>\n<li>b <code>x</code></li>\n</ul>\n<ul>\n  <li>\n    indented\n  </li>\n</ul>\n"
            "<table>\n<tbody>\n<tr>\n<td>1</td>\n</tr>\n</tbody>\n</table>\n<ol>\n<li>numbered</li></ol>"
            "<ul>\n<li>outer<ul>\n<li>inner</li>\n</ul>\n</li>\n</ul>\n<li class=\"c\">attributes</li>")
    assert [html[start:end] for start, end in row_spans(html)] == \
        ["<li>a</li>\n", "<li>b <code>x</code></li>\n", "<li>\n    indented\n  </li>\n", "<tr>\n<td>1</td>\n</tr>\n",
         "<li>numbered</li>", "<li>inner</li>\n"]
