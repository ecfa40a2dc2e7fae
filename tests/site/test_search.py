"""Material's search, in a real browser, on a site with every entry of the repository: a reader
who types the first 60 characters of an error message finds its entry among the first three
results (issue 11, item 4). Before mkdocs.yml lowered the tags' boost and the message became a
heading, the head_dim message's start listed ten other entries first."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from errorkb.core.message import MessageTemplate
from tests.site.sitekb import ROOT

pytestmark = pytest.mark.browser

# Two entries whose messages share most words with others: one has a near-twin (num_head), the
# other is made of common words ("One of the two arguments is not a Cache: ...").
ENTRIES = ["head-dim-list-length", "encoder-decoder-cache-not-a-cache"]


def typed_message(entry_id: str) -> str:
    """The entry's message as a reader has it (placeholders filled in), cut to 60 characters."""
    import yaml

    text = (ROOT / "docs" / "errors" / "transformers" / f"{entry_id}.yml").read_text(encoding="utf-8")
    template = MessageTemplate.parse(yaml.safe_load(text)["message"])
    return "".join(part.text if hasattr(part, "text") else "12" for part in template.parts)[:60]


@pytest.mark.parametrize("entry_id", ENTRIES)
def test_typing_the_start_of_a_message_finds_its_entry_in_the_first_three(visit, real_site, entry_id):
    """On the repository's own site (`real_site`: the session's one strict build, served with its whole search index):
    every entry, and the hand-written pages a reader's search also finds."""
    _, url = real_site
    tab = visit()
    tab.page.goto(url + "errors/", wait_until="load")
    box = tab.page.locator("input.md-search__input")
    box.click()
    query = typed_message(entry_id)
    box.fill(query[:-1])
    box.press_sequentially(query[-1])  # Material reacts to key events
    expect(tab.page.locator(".md-search-result__meta")).to_have_text(re.compile(r"\d+ matching document"))
    items = tab.page.locator(".md-search-result__item")
    expect(items.first).to_be_visible()
    first_three = [items.nth(i).locator("a").first.get_attribute("href") for i in range(min(items.count(), 3))]
    assert any(f"errors/transformers/{entry_id}/" in (href or "") for href in first_three), (query, first_three)
    assert tab.errors == [] and tab.outside == []
