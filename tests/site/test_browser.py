"""The built site in a real browser (Debian's Chromium driven by playwright): pages load
clean and offline, the Before/After tabs switch, and both the paste box and the search find
the entry for a concrete error message. Screenshots land in test-artifacts/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.site.sitekb import ARTIFACTS, MESSAGE, TRACEBACK

pytestmark = pytest.mark.browser

ENTRY = "errors/transformers/head-dim-list-length/"



@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_entry_page_loads_clean_and_offline(visit, site_url, scheme):
    tab = visit(scheme)
    tab.page.goto(site_url + ENTRY, wait_until="load")
    expect(tab.page.locator("h1")).to_contain_text("list does not have one value per cache layer")
    expect(tab.page.locator(".ekb-badge")).to_have_count(4)
    expect(tab.page.locator("body")).to_have_attribute("data-md-color-scheme", "slate" if scheme == "dark" else "default")
    tab.page.wait_for_timeout(300)  # late requests (search worker, index) would show up here
    ARTIFACTS.mkdir(exist_ok=True)
    tab.page.screenshot(path=str(ARTIFACTS / f"entry-{scheme}.png"), full_page=True)
    assert tab.errors == [], tab.errors
    assert tab.outside == [], tab.outside


def test_before_after_tabs_switch(visit, site_url):
    tab = visit()
    tab.page.goto(site_url + ENTRY, wait_until="load")
    tabs = tab.page.locator(".tabbed-set").first
    before = tabs.locator(".tabbed-block").nth(0)
    after = tabs.locator(".tabbed-block").nth(1)
    expect(before).to_be_visible()
    expect(after).to_be_hidden()
    tabs.locator("label", has_text="After").click()
    expect(after).to_be_visible()
    expect(before).to_be_hidden()
    expect(after).to_contain_text("early_initialization")
    tabs.locator("label", has_text="Before").click()
    expect(before).to_be_visible()


@pytest.mark.parametrize("pasted", [MESSAGE, f"ValueError: {MESSAGE}", TRACEBACK], ids=["bare", "prefixed", "traceback"])
def test_paste_box_finds_the_entry(visit, site_url, pasted):
    tab = visit()
    tab.page.goto(site_url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(pasted)
    first = tab.page.locator(".ekb-lookup__hit").first
    expect(first.locator("a.ekb-lookup__title")).to_have_attribute("href", re.compile(re.escape(ENTRY) + "$"))
    expect(first).to_contain_text("{len(self.layers)} = 28")
    if pasted == TRACEBACK:
        ARTIFACTS.mkdir(exist_ok=True)
        tab.page.screenshot(path=str(ARTIFACTS / "home-lookup.png"))
    assert tab.errors == [] and tab.outside == []


def test_paste_box_survives_instant_navigation(visit, site_url):
    """Material swaps pages without a reload: the box must mount again on each `document$`."""
    tab = visit()
    tab.page.goto(site_url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(MESSAGE)
    tab.page.locator(".ekb-lookup__hit a").first.click()
    tab.page.wait_for_url("**/" + ENTRY)
    expect(tab.page.locator("h1")).to_contain_text("head_dim")
    tab.page.evaluate("window.ekbSamePage = true")
    tab.page.locator(".md-tabs a", has_text="Errors").click()
    tab.page.wait_for_url("**/errors/")
    assert tab.page.evaluate("window.ekbSamePage === true"), "expected instant navigation, got a full reload"
    tab.page.locator(".ekb-lookup__input").fill(f"ValueError: {MESSAGE.replace('`head_dim`', '`num_head`')}")
    expect(tab.page.locator(".ekb-lookup__hit a").first).to_have_attribute(
        "href", re.compile("num-heads-list-length/$"))
    ARTIFACTS.mkdir(exist_ok=True)
    tab.page.screenshot(path=str(ARTIFACTS / "errors-lookup.png"))
    assert tab.errors == [] and tab.outside == []


def test_search_finds_the_entry_for_a_pasted_message(visit, site_url):
    tab = visit()
    tab.page.goto(site_url + "errors/", wait_until="load")
    box = tab.page.locator("input.md-search__input")
    box.click()
    box.fill(f"ValueError: {MESSAGE}"[:-1])
    box.press_sequentially(MESSAGE[-1])  # Material reacts to key events
    first = tab.page.locator(".md-search-result__item").first
    expect(first.locator("a").first).to_have_attribute("href", re.compile(re.escape(ENTRY)))
    ARTIFACTS.mkdir(exist_ok=True)
    tab.page.screenshot(path=str(ARTIFACTS / "search.png"))
    assert tab.errors == [] and tab.outside == []
