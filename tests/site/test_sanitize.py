"""The sanitiser (nh3) the site runs on every generated page: it removes what could run script
and nothing the real knowledge base's pages are made of."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from html.parser import HTMLParser

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.report import read_reports
from errorkb.site import files
from errorkb.site.sanitize import sanitize
from tests.site.sitekb import ROOT
from tests.site.test_inert import site_markdown


class _Shape(HTMLParser):
    """Elements with their attributes, and the text, of a piece of HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements: Counter = Counter()
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        # `markdown="0"` (md_in_html's switch, meaningless to a browser) may go; `checked` is boolean
        # nh3 writes a style as `text-align:right`
        kept = [(k, "" if k == "checked" else v.replace(" ", "").rstrip(";") if k == "style" else v)
                for k, v in attrs if k != "markdown"]
        self.elements[(tag, tuple(sorted(kept)))] += 1

    handle_startendtag = handle_starttag

    def handle_data(self, data):
        self.text.append(data)


def shape(html: str) -> tuple[Counter, str]:
    parser = _Shape()
    parser.feed(html)
    parser.close()
    return parser.elements, " ".join("".join(parser.text).split())


def real_page_markdown() -> dict[str, str]:
    """Every generated page of the repository's knowledge base, path → its Markdown (front matter kept)."""
    project = load_project(ROOT)
    loaded = load_project_entries(project, files.reserved_ids())
    reports, _ = read_reports(project.reports, ("cpu", "cuda"))
    _, generated = files.site_files(project, loaded, reports)
    return {one.path: one.content for one in generated if one.page}


def render_real_pages(sources: Mapping[str, str]) -> dict[str, str]:
    """Every generated page of the repository's knowledge base (`sources`: `real_page_markdown()`), as
    Python-Markdown renders it."""
    pages = {}
    for path, content in sources.items():
        body = re.sub(r"\A---\n.*?\n---\n", "", content, flags=re.S)
        pages[path] = site_markdown().convert(body)
    return pages


def test_the_real_pages_lose_nothing(real_pages):  # the session's rendering (tests/site/sitekb.py)
    pages = real_pages
    assert len(pages) > 40
    for path, html in pages.items():
        before, after = shape(html), shape(sanitize(html))
        assert before[1] == after[1], path  # the same text
        lost = before[0] - after[0]
        assert not lost, (path, list(lost)[:5])


@pytest.mark.parametrize("html, kept, gone", [
    ('<img src=x onerror="alert(1)">', "<img", "onerror"),
    ('<a href="javascript:alert(1)">x</a>', "x", "javascript"),
    ('<a href=" JaVaScRiPt:alert(1)">x</a>', "x", "alert"),
    ('<a href="&#106;avascript:alert(1)">x</a>', "x", "avascript"),
    ('<svg onload="alert(1)"><circle/></svg>text', "text", "onload"),  # the release pictures' <svg> may stay
    ('<svg><circle onclick="alert(1)"/><script>alert(1)</script></svg>', "<svg", "circle"),
    ('<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', "", "onerror"),
    ("<script>alert(1)</script>text", "text", "alert"),
    ('<iframe srcdoc="<script>alert(1)</script>"></iframe>', "", "iframe"),
    ('<div style="background:url(javascript:alert(1))">d</div>', "d", "style"),
    ('<td style="text-align: right; position: fixed">c</td>', "c", "position"),
    ('<img src="https://tracker.example/p.png">', "<img", "tracker"),
    ('<img src="//tracker.example/p.png">', "<img", "tracker"),
    # a browser reads a backslash as a slash and drops tabs and newlines: each of these is //tracker...
    ('<img src="\\\\tracker.example/p.png">', "<img", "tracker"),
    ('<img src="/\\tracker.example/p.png">', "<img", "tracker"),
    ('<img src="\\/tracker.example/p.png">', "<img", "tracker"),
    ('<img src="/&#92;tracker.example/p.png">', "<img", "tracker"),
    ('<img src="/\t/tracker.example/p.png">', "<img", "tracker"),
    ('<img src="/&#10;/tracker.example/p.png">', "<img", "tracker"),
    ('<img src="&#1;//tracker.example/p.png">', "<img", "tracker"),
    ('<img src="https&#9;://tracker.example/p.png">', "<img", "tracker"),
    ('<a href="data:text/html,x">x</a>', "x", "data:"),
    ('<form action="https://x"><input name=q></form>', "", "form"),
])
def test_what_could_run_script_or_call_out_is_removed(html, kept, gone):
    clean = sanitize(html)
    assert kept in clean and gone not in clean.lower(), clean


def test_what_the_pages_are_made_of_is_kept():
    html = ('<div class="tabbed-set tabbed-alternate" data-tabs="1:2"><input checked="checked" id="__tabbed_1_1" '
            'name="__tabbed_1" type="radio" /><div class="tabbed-labels"><label for="__tabbed_1_1">Before</label>'
            '</div></div><a class="headerlink" href="#x" title="Permanent link">¶</a>'
            '<div class="ekb-lookup" data-index="../api/errors/index.json"></div>'
            '<table><tr><th style="text-align: left;">a</th></tr></table><img alt="d" src="../img/d.png">')
    clean = sanitize(html)
    for piece in ['data-tabs="1:2"', 'type="radio"', 'name="__tabbed_1"', 'for="__tabbed_1_1"', 'href="#x"',
                  'data-index="../api/errors/index.json"', 'style="text-align:left"', 'src="../img/d.png"']:
        assert piece in clean, (piece, clean)
