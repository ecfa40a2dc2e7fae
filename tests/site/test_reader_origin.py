"""Where an error comes from, as a reader is told it everywhere an entry is listed (the errors index,
by exception, related errors, the page's search-engine description, the paste box): the entry page's
own words. An entry about a removed or renamed API is raised at the user's use of the old name; its
`source.function` is the *replacement* the after calls, so "AttributeError from get_max_cache_shape"
sends the reader to the one call that works. And the paste box's badges speak the page's words: a
not-applicable badge is not a "?"."""

from __future__ import annotations

import html
import re

import pytest
import yaml
from playwright.sync_api import expect

from errorkb.core.project import load_project
from errorkb.site import evidence, render
from tests.site.sitekb import ROOT

REMOVED = "get-max-length-removed"  # kind 'removed': source.function is DynamicCache.get_max_cache_shape


def _text(markdown: str) -> str:
    """A page's words as read: tags and line-break hints gone, entities decoded, code spans' ticks dropped."""
    return html.unescape(re.sub(r"<[^>]+>", "", markdown)).replace("`", "")


def _api_entries():
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.site import files

    project = load_project(ROOT)
    loaded = load_project_entries(project, files.reserved_ids())
    return [one.entry for one in loaded.entries if one.entry.kind != "raise"]


def test_no_page_says_a_removed_api_error_comes_from_its_replacement(real_page_sources):
    """Every line that links to an entry of kind 'removed' / 'signature' (a row of the errors index or of
    by-exception, a related error) and the entry's own search-engine description."""
    entries = {e.id: e for e in _api_entries()}
    assert len(entries) > 40
    wrong, seen = [], set()
    for path, markdown in real_page_sources.items():
        for line in markdown.splitlines():
            own = path.rsplit("/", 1)[-1][:-3] if line.startswith("description: ") else None
            linked = {own} | set(re.findall(r"\]\((?:[^)\s]*/)?([a-z0-9-]+)\.md\)", line))
            for e in (entries[i] for i in linked if i in entries):
                seen.add(path)
                said = _text(line)
                if f"{e.exception} from {e.source.function}" in said or f"raised by {e.source.function}" in said:
                    wrong.append((path, e.id, said[-160:]))
    assert not wrong, wrong[:6]
    assert {"errors/index.md", "errors/by-exception.md"} <= seen, sorted(seen)[:5]
    index = _text(real_page_sources["errors/index.md"])
    assert "AttributeError at a use of transformers.DynamicCache.get_max_length" in index


def test_the_paste_box_index_carries_the_origin_and_the_badge_words():
    entry = next(e for e in _api_entries() if e.id == REMOVED)
    assert entry.origin == ("at a use of", "transformers.DynamicCache.get_max_length")
    library = load_project(ROOT).library
    words = render.badge_words(library)
    assert words == {"words": evidence.OUTCOME_WORDS, "icons": evidence.ICONS,
                     "targets": render.target_words(library)}


def _report(report_id: str) -> dict:
    """One report of tests/corpus/reports.yml, as pasted by a reader."""
    reports = yaml.safe_load((ROOT / "tests/corpus/reports.yml").read_text())
    return next(one for one in reports if one["id"] == report_id)


def _removed_api_hit(tab, url: str):
    """r013's traceback (Emu3's remote code) pasted into the box at `url`: its confirmed answer, the removed-API
    entry's."""
    tab.page.goto(url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(_report("r013")["paste"])
    hit = tab.page.locator(".ekb-lookup__hit--confirmed").first
    expect(hit.locator("a.ekb-lookup__title")).to_have_attribute("href", re.compile(REMOVED + "/$"))
    return hit


def test_the_paste_box_answer_says_where_and_speaks_the_badges_words(visit, reader_site):
    """The real traceback of tests/corpus/reports.yml r013 (Emu3's remote code) is a confirmed answer
    for a removed-API entry whose badges include 'not applicable' (the bundled 5.15.1 has no such error)."""
    _, url = reader_site
    tab = visit()
    tab.page.set_viewport_size({"width": 390, "height": 844})
    hit = _removed_api_hit(tab, url)
    meta = hit.locator(".ekb-lookup__meta")
    expect(meta).to_contain_text("AttributeError at a use of transformers.DynamicCache.get_max_length")
    expect(meta).not_to_contain_text("get_max_cache_shape")
    chips = hit.locator(".ekb-lookup__badges .ekb-mini")
    expect(chips).to_have_count(3)  # folded as the entry's page folds them: 'not applicable' once, on every device
    texts = chips.all_text_contents()
    assert not [t for t in texts if t.startswith("?")], texts
    named = render.target_words(load_project(ROOT).library)["bundled"]["name"]  # the reader's words for 'bundled'
    bundled = hit.locator(".ekb-mini", has_text=named)
    expect(bundled).to_have_text(f"∅ {named}: not applicable")
    expect(bundled).to_have_attribute("title", re.compile(rf"^{re.escape(named)}: not applicable"))
    assert tab.errors == [] and tab.outside == []


def _older_index(tab, site):
    """`tab`, its paste box reading the site's index with no entry's `origin` (an index built before rules 36)."""
    import json

    data = json.loads((site / "api/errors/index.json").read_text(encoding="utf-8"))
    for item in data["entries"]:
        item.pop("origin", None)
    tab.page.route("**/api/errors/index.json", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(data)))
    return tab


def test_an_older_index_without_origin_never_sends_the_reader_to_the_replacement(visit, reader_site):
    """An index built before `origin` was shipped (rules < 36) carries a removed API's `function`, which is its
    replacement: the paste box says nothing of where such an error comes from, as `errorkb lookup` does, and
    still says a raise's function (test_an_older_index_without_origin_still_says_where_a_raise_comes_from)."""
    site, url = reader_site
    tab = _older_index(visit(), site)
    hit = _removed_api_hit(tab, url)
    meta = hit.locator(".ekb-lookup__meta")
    expect(meta).to_contain_text("AttributeError")
    expect(meta).not_to_contain_text("get_max_cache_shape")
    expect(meta).not_to_contain_text(" from ")
    assert tab.errors == [] and tab.outside == []


def test_an_older_index_without_origin_still_says_where_a_raise_comes_from(visit, reader_site):
    """h207 (UniVLA)'s candidate is a raise (`Module.__getattr__`): in an index without `origin`, its function is where
    it comes from, as `errorkb lookup` says it (lookup.js `origin`, one reading for both)."""
    site, url = reader_site
    tab = _older_index(visit(), site)
    tab.page.goto(url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(_report("h207")["paste"])
    hit = tab.page.locator(".ekb-lookup__hit--candidate", has=tab.page.locator(
        "a[href$='remote-model-without-generation-mixin/']")).first
    expect(hit).to_be_visible()  # a card is drawn whole: its meta is read at once, never waited for
    assert "AttributeError from Module.__getattr__" in hit.locator(".ekb-lookup__meta").inner_text()
    assert tab.errors == [] and tab.outside == []


# -- what the paste box's hints quote is quoted whole -----------------------------------------------------------

def _spans(text: str) -> list[str]:
    """The code spans of `text` as CommonMark reads them (the page's `codeSpans` does the same)."""
    spans, i = [], 0
    while (start := text.find("`", i)) >= 0:
        run = len(text[start:]) - len(text[start:].lstrip("`"))
        close = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(text, start + run)
        if not close:
            break
        code = text[start + run:close.start()]
        spans.append(code[1:-1] if len(code) > 2 and code[0] == code[-1] == " " and code.strip() else code)
        i = close.end()
    return spans


def _candidate_hints() -> list[str]:
    from benchmarks.lookup_recall import project_known_lookup

    answer = project_known_lookup().answer(_report("h207")["paste"], None)
    match = next(m for m in answer.matches if m.known.id == "remote-model-without-generation-mixin")
    return list(match.missing)


def test_a_hint_quoting_text_with_backticks_quotes_it_whole():
    """h207 (UniVLA): a candidate whose entry is recognised by a warning that itself holds a code span
    ("doesn't directly inherit from `GenerationMixin`"); a single-backtick quote of it broke in two."""
    quoted = [s for hint in _candidate_hints() for s in _spans(hint)]
    assert "doesn't directly inherit from `GenerationMixin`" in quoted, _candidate_hints()


@pytest.mark.parametrize("text", ["plain", "a `b` c", "`x`", "``", " spaced ", "ends`", "a ``b`` ` c"])
def test_code_span_reads_back_as_written(text):
    from errorkb.lookup._match import code_span

    assert _spans(code_span(text)) == [text]


@pytest.mark.browser
def test_the_paste_box_shows_a_quoted_hint_whole(visit, reader_site):
    _, url = reader_site
    tab = visit()
    tab.page.goto(url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(_report("h207")["paste"])
    hit = tab.page.locator(".ekb-lookup__hit--candidate", has=tab.page.locator(
        "a[href$='remote-model-without-generation-mixin/']")).first
    expect(hit.locator(".ekb-lookup__reasons code", has_text="directly inherit")).to_have_text(
        "doesn't directly inherit from `GenerationMixin`")
    assert tab.errors == [] and tab.outside == []
