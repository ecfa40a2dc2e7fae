"""What a reader sees first, round two (session 54): the badges of an entry as a person whose script just died
reads them, often on a phone. A verdict comes before the badges that are none (not applicable, not run), which
are folded, each said once with its reason; the targets are named in the reader's words, owned in one place
(`render.badge_words`, the paste box reading them from the index); a CUDA check that did not run says so in
words, never as a mark a glance takes for a failure or a pass; the errors index says where a removed name's
error comes from; and its verification column reads on a phone without scrolling sideways."""

from __future__ import annotations

import html
import json
import re

import pytest
from playwright.sync_api import expect

from errorkb.core.project import load_project
from errorkb.site import evidence, render
from tests.site.sitekb import ROOT

REMOVED = "errors/transformers/get-max-length-removed"  # not applicable on bundled (cpu, cuda), not run on cuda
VERDICTS = ("pass", "partial", "fail")
PHONE = {"width": 390, "height": 844}


def _words(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


def _outcomes(markup: str, cls: str) -> list[str]:
    """The outcome of each `cls` element (`ekb-badge`, `ekb-mini`) in `markup`, in the order it shows."""
    return re.findall(rf'<span class="{cls} ekb-([a-z-]+)', markup)


def _rows(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("| [")]


def test_verdicts_come_before_the_badges_that_are_none_everywhere_badges_show(real_page_sources):
    """The removed API's two 'not applicable' badges took a phone's first screen before its one verified badge."""
    late = []
    for path, markdown in real_page_sources.items():
        groups = [_outcomes(markdown, "ekb-badge")] if path.startswith("errors/transformers/") else []
        groups += [_outcomes(row, "ekb-mini") for row in _rows(markdown)]
        for outcomes in groups:
            ranks = [0 if outcome in VERDICTS else 1 for outcome in outcomes]
            if ranks != sorted(ranks):
                late.append((path, outcomes))
    assert not late, late[:5]
    entry = real_page_sources[REMOVED + ".md"]
    assert _outcomes(entry, "ekb-badge")[0] == "pass", _outcomes(entry, "ekb-badge")


def test_the_badges_that_are_none_are_folded_each_once_with_its_reason(real_page_sources):
    """Two 'not applicable' badges saying the same reason, and a 'not run' badge per target on CUDA: one line each."""
    entry = real_page_sources[REMOVED + ".md"]
    outcomes = _outcomes(entry, "ekb-badge")
    assert outcomes.count("not-applicable") == 1 and outcomes.count("not-run") == 1, outcomes
    badges = re.findall(r'(<span class="ekb-badge [^"]*".*?</span>)\n', entry)
    not_applicable = _words(next(one for one in badges if "ekb-not-applicable" in one))
    assert "does not raise this error" in not_applicable, not_applicable
    assert "reimplemented transformers 5.15.1" in not_applicable, not_applicable  # on every device: no device named
    for path, markdown in real_page_sources.items():  # the lists: one chip per reason, never one per target
        for row in _rows(markdown):
            chips = re.findall(r'<span class="ekb-mini ekb-(not-run|not-applicable)[^"]*" title="([^"]*)"', row)
            assert len(chips) == len(set(chips)), (path, chips)


def test_a_check_that_did_not_run_says_so_in_words_and_never_reads_as_verified(real_page_sources):
    """'– upstream·cuda' beside '✓ upstream·cpu': a dash a glance takes for a failure, or passes over as a pass."""
    entry = real_page_sources[REMOVED + ".md"]
    badge = next(one for one in re.findall(r'(<span class="ekb-badge [^"]*".*?</span>)\n', entry) if "ekb-not-run" in one)
    said = _words(badge).lower()
    assert "not run" in said and "cuda" in said and "not verified" in said, said
    assert "verified ·" not in said and "passed" not in said, said
    for row in _rows(real_page_sources["errors/index.md"]):
        for chip in re.findall(r'<span class="ekb-mini ekb-not-run[^"]*" title="([^"]*)">([^<]*)</span>', row):
            assert "not run" in chip[1] and "not verified" in html.unescape(chip[0]).lower(), chip
    index = _words(real_page_sources["errors/index.md"].split("| Error |")[0])
    assert "not run" in index and "neither a pass nor a failure" in index, index  # said once, where it helps


def test_the_targets_are_named_in_the_readers_words_from_one_place(real_page_sources):
    """'bundled' and 'upstream' mean nothing to a reader: each badge, chip and captured error names what ran."""
    library = load_project(ROOT).library
    words = render.badge_words(library)
    assert words["words"] == evidence.OUTCOME_WORDS and words["icons"] == evidence.ICONS
    targets = words["targets"]
    assert set(targets) == set(library.available_targets)
    assert f"{library.name} {library.release}" in targets["bundled"]["name"], targets
    assert "real" in targets["upstream"]["name"] and library.name in targets["upstream"]["name"], targets
    bare = re.compile(r"\b(?:bundled|upstream) ?· ?(?:cpu|cuda)\b")
    for path, markdown in real_page_sources.items():
        if path.startswith("errors/"):
            shown = [_words(one) for one in re.findall(r'<span class="ekb-(?:badge|mini) .*?</span>', markdown)]
            assert not [one for one in shown if bare.search(one)], (path, shown[:4])
    entry = real_page_sources[REMOVED + ".md"]
    assert targets["upstream"]["name"] in _words(entry) and targets["bundled"]["name"] in _words(entry)
    document = render.index_document([], library)
    assert document["outcomes"] == words  # the paste box's chips read them from the index


def test_the_index_intro_says_where_a_removed_names_error_comes_from(real_page_sources):
    """'raised exactly this error from the function named' misread for a removed name, raised at its use."""
    intro = _words(real_page_sources["errors/index.md"].split("| Error |")[0])
    assert "from the function named" not in intro or "use of" in intro, intro
    assert "at the use of" in intro or "at a use of" in intro, intro


@pytest.mark.browser
def test_a_phone_shows_the_verdict_first_and_the_whole_verification_column(visit, reader_site):
    _, url = reader_site
    tab = visit()  # the page's layout, not its search (`reader_site`)
    tab.page.set_viewport_size(PHONE)
    tab.page.goto(url + REMOVED + "/", wait_until="load")
    first = tab.page.locator(".ekb-badges .ekb-badge").first
    expect(first).to_have_class(re.compile(r"\bekb-pass\b"))
    box = first.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box
    tab.page.goto(url + "errors/", wait_until="load")
    chips = tab.page.locator("table .ekb-mini")
    assert chips.count() > 100
    cut = tab.page.evaluate("""() => [...document.querySelectorAll('table .ekb-mini')]
        .map((el) => el.getBoundingClientRect()).filter((r) => r.right > window.innerWidth + 0.5 || r.left < 0)
        .length""")
    assert cut == 0, f"{cut} chips of the verification column lie past the phone's edge"


@pytest.mark.browser
def test_the_paste_box_chips_name_the_targets_in_the_readers_words(visit, reader_site):
    site, url = reader_site
    targets = json.loads((site / "api/errors/index.json").read_text(encoding="utf-8"))["outcomes"]["targets"]
    tab = visit()
    tab.page.goto(url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill("AttributeError: 'DynamicCache' object has no attribute "
                                                 "'get_max_length'")
    chips = tab.page.locator(".ekb-lookup__hit").first.locator(".ekb-mini")
    expect(chips.first).to_contain_text(targets["upstream"]["name"])
    texts = chips.all_text_contents()
    assert not [t for t in texts if re.search(r"\b(?:bundled|upstream)·", t)], texts
    assert tab.errors == [] and tab.outside == [], (tab.errors, tab.outside)


def test_a_removed_names_first_screen_says_its_replacement_once(real_page_sources):
    """The line under the fix repeated the replacement the fix line had just given: four more lines on a phone
    between the message and the badges."""
    repeated = []
    for path, markdown in real_page_sources.items():
        fix = re.search(r"^\*\*The fix:\*\* (.*)$", markdown, re.M)
        meta = re.search(r"^(.*)\n\{: \.ekb-meta \}$", markdown, re.M)
        if fix and meta and fix.group(1).startswith("use ") and "replaced by" in meta.group(1):
            repeated.append(path)
    assert not repeated, repeated[:5]
