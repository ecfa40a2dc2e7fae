"""The paste box's result cards in a real browser (errorkb/site/assets/errorkb.js): the title's
code spans as <code> and never as markup, the wording that matched, the release verdict, the
notice when a long paste was cut, and confirmed answers apart from possible ones. The site's own
index is swapped for a test index (carrying the matcher's rules, as every index does)."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from errorkb.core.message import GENERIC_WORDINGS
from errorkb.lookup._rules import rules_document
from tests.site.sitekb import MESSAGE

pytestmark = pytest.mark.browser

HEAD_DIM = ("`head_dim` was provided as a list of length {len(num_heads)}, but the Cache currently has "
            "{len(self.layers)} layers")
HOSTILE_TITLE = "`head_dim` list <img src=x onerror=window.ekbPwned=1> is `<b>bold</b>` and ``a`b``"
INDEX = {"schema": 1, "library": {"name": "transformers"}, "rules": rules_document(list(GENERIC_WORDINGS)), "entries": [
    {"id": "head-dim", "title": HOSTILE_TITLE, "exception": "ValueError", "message": HEAD_DIM,
     "function": "Cache.early_initialization", "url": "errors/transformers/head-dim-list-length/"},
    {"id": "evil-link", "title": "evil link", "exception": "ValueError", "url": "javascript:window.ekbPwned=2",
     "message": "`num_head` was provided as a list of length {n}, but the Cache currently has {m} layers"},
    {"id": "get-max-length", "title": "`get_max_length` was removed", "exception": "AttributeError",
     "function": "GenerationMixin.generate", "url": "errors/transformers/get-max-length/",
     "message": "'DynamicCache' object has no attribute 'get_max_length'",
     "wordings": [{"message": "'DynamicCache' object has no attribute 'get_max_length'", "exception": None},
                  {"message": "'{cls}' object has no attribute 'get_max_length'", "exception": None,
                   "releases": ">=4.49", "note": "subclasses and `remote code` caches"}],
     "raises_in": ">=4.49", "last_good": "4.48.3", "replacement": "`get_max_cache_shape()`",
     "replacement_since": "4.45.0",
     "lines": {"path": "transformers/generation/utils.py", "by_release": {"4.49.0": 1602, "4.50.0": 1602}}},
]}
FRAMED = """Traceback (most recent call last):
  File "/venv/lib/python3.11/site-packages/transformers/generation/utils.py", line 1602, in generate
    past_length = cache.get_max_length()
AttributeError: 'MyCache' object has no attribute 'get_max_length'. Did you mean: 'get_seq_length'?
"""


def open_box(visit, site_url):
    tab = visit()
    tab.page.route("**/api/errors/index.json", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(INDEX)))
    tab.page.goto(site_url, wait_until="load")
    return tab


def test_the_title_shows_code_spans_as_code_and_never_as_markup(visit, site_url):
    tab = open_box(visit, site_url)
    tab.page.locator(".ekb-lookup__input").fill(f"ValueError: {MESSAGE}")
    title = tab.page.locator(".ekb-lookup__hit a.ekb-lookup__title").first
    expect(title).to_contain_text("<img src=x onerror=window.ekbPwned=1>")
    assert title.locator("code").all_inner_texts() == ["head_dim", "<b>bold</b>", "a`b"]
    assert tab.page.locator(".ekb-lookup__results img, .ekb-lookup__results b").count() == 0
    assert tab.page.evaluate("window.ekbPwned === undefined")
    assert tab.errors == [] and tab.outside == []


def test_a_javascript_url_never_becomes_a_link(visit, site_url):
    tab = open_box(visit, site_url)
    tab.page.locator(".ekb-lookup__input").fill(f"ValueError: {MESSAGE.replace('`head_dim`', '`num_head`')}")
    card = tab.page.locator(".ekb-lookup__hit").first
    expect(card).to_contain_text("evil link")
    assert card.locator("a.ekb-lookup__title").get_attribute("href") is None
    assert tab.page.locator(".ekb-lookup__results [href^='javascript']").count() == 0


def test_the_card_shows_the_wording_that_matched_and_the_release_verdict(visit, site_url):
    tab = open_box(visit, site_url)
    tab.page.locator(".ekb-lookup__input").fill(FRAMED)
    card = tab.page.locator(".ekb-lookup__hit").first
    expect(card.locator(".ekb-lookup__wording")).to_contain_text(
        "Matched another wording of this error (transformers >=4.49): '{cls}' object has no attribute 'get_max_length'")
    assert card.locator(".ekb-lookup__wording code").all_inner_texts()[-1] == "remote code"
    release = card.locator(".ekb-lookup__release")
    expect(release).to_have_text("transformers 4.49.0 – 4.50.0 (read from the traceback's frames): raises it. "
                                 "Use get_max_cache_shape() (available since 4.45.0).")
    expect(card.locator(".ekb-lookup__grade")).to_have_text("confirmed")
    assert release.locator("code").all_inner_texts() == ["get_max_cache_shape()"]
    assert "ekb-lookup__release--raises" in release.get_attribute("class")
    assert tab.errors == [] and tab.outside == []


def test_a_long_paste_says_how_much_was_cut(visit, site_url):
    tab = open_box(visit, site_url)
    tab.page.locator(".ekb-lookup__input").fill("x" * 70_000 + f"\nValueError: {MESSAGE}")
    expect(tab.page.locator(".ekb-lookup__cut")).to_contain_text("matched its last")
    expect(tab.page.locator(".ekb-lookup__cut")).to_contain_text("cut from the start")
    expect(tab.page.locator(".ekb-lookup__hit").first).to_contain_text("{len(self.layers)} = 28")


# -- real reports against the real knowledge base -------------------------------------------------

# Five reports of tests/corpus/reports.yml as people pasted them: a rank prefix and an interpreter hint,
# a Windows path, an IPython traceback, an issue title without its quotes, a title without backticks.
REAL = ("r012", "r052", "r142", "r123", "r152")


def real_index() -> dict:
    """The real entries' index, exactly as `mkdocs build` writes api/errors/index.json."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.site.render import build_pages, index_document
    from tests.site.sitekb import ROOT

    project = load_project(ROOT)
    return index_document(build_pages(project, load_project_entries(project).entries, {}), project.library)


def test_real_reports_land_on_their_entry_in_the_paste_box(visit, site_url):
    from benchmarks import lookup_recall

    reports = {item["id"]: item for item in lookup_recall.read_corpus(lookup_recall.CORPUS)}
    index = real_index()
    tab = visit()
    tab.page.route("**/api/errors/index.json", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(index)))
    tab.page.goto(site_url, wait_until="load")
    box = tab.page.locator(".ekb-lookup__input")
    for report in (reports[one] for one in REAL):
        box.fill(report["paste"] or report["message"])
        title = tab.page.locator(".ekb-lookup__hit a.ekb-lookup__title").first
        expect(title).to_have_attribute("href", re.compile(f"/errors/transformers/{report['expect']}/$"))
    assert tab.errors == [] and tab.outside == []


# -- a generic message: possible; with the traceback that ties it: confirmed (issue 19) ------------

GENERIC = "IndexError: list index out of range"
TIED = """Traceback (most recent call last):
  File "/home/me/run.py", line 16, in <module>
    cache.update(k, v, layer_idx=layer_idx)
  File "/venv/lib/python3.11/site-packages/transformers/cache_utils.py", line 1376, in update
    keys, values = self.layers[layer_idx].update(key_states, value_states, *args, **kwargs)
IndexError: list index out of range
"""
ELSEWHERE = """Traceback (most recent call last):
  File "/home/me/run.py", line 2, in <module>
    print(items[5])
IndexError: list index out of range
"""


def test_a_generic_message_is_possible_and_the_traceback_that_ties_it_confirms_it(visit, site_url):
    """The real entries' index: the bare message offers the entry as possible, with what would tell;
    the traceback through the documented function confirms it; raised elsewhere, nothing."""
    index = real_index()
    tab = visit()
    tab.page.route("**/api/errors/index.json", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(index)))
    tab.page.goto(site_url, wait_until="load")
    box = tab.page.locator(".ekb-lookup__input")
    box.fill(GENERIC)
    card = tab.page.locator(".ekb-lookup__hit").first
    expect(card.locator(".ekb-lookup__grade")).to_have_text("possible")
    expect(card).to_have_class(re.compile("ekb-lookup__hit--candidate"))
    expect(tab.page.locator(".ekb-lookup__possible")).to_contain_text("not confirmed")
    expect(card.locator(".ekb-lookup__reasons")).to_contain_text("paste the whole traceback")
    assert tab.page.locator(".ekb-lookup__hit--confirmed").count() == 0
    box.fill(TIED)
    card = tab.page.locator(".ekb-lookup__hit").first
    expect(card.locator(".ekb-lookup__grade")).to_have_text("confirmed")
    expect(card.locator("a.ekb-lookup__title")).to_have_attribute(
        "href", re.compile("/errors/transformers/layer-idx-out-of-range/$"))
    expect(card.locator(".ekb-lookup__reasons")).to_contain_text("why: a frame in")
    box.fill(ELSEWHERE)
    expect(tab.page.locator(".ekb-lookup__none")).to_contain_text("No entry matches")
    assert tab.errors == [] and tab.outside == []


def test_a_stale_badge_in_a_card_says_why(visit, site_url):
    """The card's badge said "verified · stale" and nothing more: the index carries why (`stale_why`,
    errorkb.results.keys.STALE_WHY), and the badge's title says it."""
    from errorkb.results.keys import STALE_WHY

    stale = {**INDEX, "stale_why": STALE_WHY, "entries": [
        {**INDEX["entries"][0], "badges": [{"target": "bundled", "device": "cpu", "outcome": "pass", "stale": True,
                                            "date": "2026-12-01"}]}]}
    tab = visit()
    tab.page.route("**/api/errors/index.json", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(stale)))
    tab.page.goto(site_url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(f"ValueError: {MESSAGE}")
    chip = tab.page.locator(".ekb-lookup__hit .ekb-mini.ekb-stale").first
    expect(chip).to_have_attribute("title", re.compile(re.escape(f"stale: {STALE_WHY}")))
    assert tab.errors == []
