"""What a reader sees, round three (session 55): the paste box's chips folded as the entry page folds its badges
(one owner: the page's fold, shipped in the index); the migration table on a phone, every cell there without
scrolling sideways; release ranges in a reader's words, never a specifier, and a replacement's "since" never
glued to a text that names its own releases; and the version matrix in plain words on an entry's page: what the
before did on each release where it did not raise as documented, and which releases were not run and why."""

from __future__ import annotations

import html
import json
import re

import pytest
from playwright.sync_api import expect

from errorkb.core.project import load_project
from errorkb.results.matrix import ReleaseState, State
from errorkb.site import render
from tests.site.sitekb import ROOT

REMOVED = "errors/transformers/get-max-length-removed"  # not applicable on bundled (cpu, cuda), not run on cuda
GAP = "errors/transformers/reused-cache-mask-covers-new-tokens-only"  # 4.36-4.37: raised from another function
PHONE = {"width": 390, "height": 844}
SPECIFIER = re.compile(r"(?:>=|<=|==|!=|~=|\|\||(?<![-\w])[<>](?=\d))")


def _words(markup: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", markup)).split())


# -- 1. the paste box's chips: the page's fold, shipped as data ----------------------------------------------


@pytest.fixture(scope="module")
def index_document() -> dict:
    """The lookup's index as the site publishes it (`api/errors/index.json`)."""
    from errorkb.core.load import load_project_entries
    from errorkb.results.report import read_reports
    from errorkb.site import files

    project = load_project(ROOT)
    loaded = load_project_entries(project, files.reserved_ids())
    reports, _ = read_reports(project.reports, ("cpu", "cuda"))
    _, generated = files.site_files(project, loaded, reports)
    return json.loads(next(one.content for one in generated if one.path == render.INDEX_JSON))


def test_the_index_ships_each_entrys_badges_as_its_page_folds_them(index_document, real_page_sources):
    """The chips were the raw badges, one per target x device: the removed API's two 'not applicable' chips said
    one reason twice, where its page says it once."""
    document = index_document
    entries = {entry["id"]: entry for entry in document["entries"]}
    shown = entries["get-max-length-removed"]["shown"]
    outcomes = [chip["outcome"] for chip in shown]
    assert outcomes.count("not-applicable") == 1 and outcomes.count("not-run") == 1, shown
    assert outcomes[0] == "pass", shown
    page = _words(real_page_sources[REMOVED + ".md"].split("<div class=\"ekb-badges\">")[1].split("</div>")[0])
    for chip in shown:  # the same words as the page's badges, nothing of the script's own
        assert chip["where"] in page and chip["label"].lower() in page.lower(), (chip, page)
        if chip["folded"]:
            assert chip["said"] and chip["said"] in page, (chip, page)


@pytest.mark.browser
def test_the_paste_box_chips_are_folded_once_per_reason(visit, reader_site):
    site, url = reader_site
    index = json.loads((site / "api/errors/index.json").read_text(encoding="utf-8"))
    shown = next(entry for entry in index["entries"] if entry["id"] == "get-max-length-removed")["shown"]
    tab = visit()
    tab.page.goto(url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill("AttributeError: 'DynamicCache' object has no attribute "
                                                 "'get_max_length'")
    chips = tab.page.locator(".ekb-lookup__hit").first.locator(".ekb-mini")
    expect(chips).to_have_count(len(shown))
    assert tab.page.locator(".ekb-lookup__hit").first.locator(".ekb-mini.ekb-not-applicable").count() == 1
    texts = chips.all_text_contents()
    assert [chip["where"] in text for chip, text in zip(shown, texts, strict=True)] == [True] * len(shown), texts
    assert tab.errors == [] and tab.outside == [], (tab.errors, tab.outside)


# -- 2. the migration table on a phone ---------------------------------------------------------------------


@pytest.mark.browser
def test_the_migration_table_reads_on_a_phone_without_scrolling_sideways(visit, reader_site):
    _, url = reader_site
    tab = visit()  # the page's layout, not its search (`reader_site`)
    tab.page.set_viewport_size(PHONE)
    tab.page.goto(url + "migration/", wait_until="load")
    table = tab.page.locator("#removals ~ .md-typeset__scrollwrap table, #removals ~ * table").first
    expect(table).to_be_visible()
    found = tab.page.evaluate("""() => {
        const table = document.querySelector('h2#removals ~ .md-typeset__scrollwrap table');
        const cells = [...table.querySelectorAll('tbody td')];
        const wide = [table, ...table.querySelectorAll('*')].map((el) => el.getBoundingClientRect())
            .filter((r) => r.width && (r.right > window.innerWidth + 0.5 || r.left < -0.5)).length;
        const scrolls = [...document.querySelectorAll('.md-typeset__table, .md-typeset__scrollwrap')]
            .filter((el) => el.contains(table) && el.scrollWidth > el.clientWidth + 1).length;
        const hidden = cells.filter((td) => td.getClientRects().length === 0 || !td.innerText.trim()).length;
        const heads = [...table.querySelectorAll('thead th')].map((th) => th.innerText.trim());
        const labelled = cells.filter((td) => heads.some((h) => td.innerText.trim().startsWith(h))).length;
        return {wide, scrolls, hidden, cells: cells.length, rows: table.querySelectorAll('tbody tr').length,
                heads: heads.length, labelled};
    }""")
    assert found["rows"] > 10 and found["cells"] == found["rows"] * found["heads"], found
    assert found["wide"] == 0 and found["scrolls"] == 0, found  # nothing past the phone's edge, no sideways scroll
    assert found["hidden"] == 0, found  # every cell still there, and says something
    assert found["labelled"] >= found["rows"] * (found["heads"] - 2), found  # each value says which column it is


# -- 3. release ranges in a reader's words -----------------------------------------------------------------


@pytest.mark.parametrize(("specifier", "words"), [
    (">=4.49,<5.13", "4.49 – 5.12"),
    ("<4.42 || >=4.54", "4.41 and earlier, 4.54 and later"),
    (">=5.20", "5.20 and later"),
    ("<4.38", "4.37 and earlier"),
    (">=4.44,<5.0", "4.44 up to, not including, 5.0"),
    ("<5.0", "before 5.0"),
    ("==4.49.*", "4.49"),
    (">=4.36,<4.36.3", "4.36 up to, not including, 4.36.3"),
    (">=4.39,<4.44 || >=5.5", "4.39 – 4.43, 5.5 and later"),
    ("<=4.48.3", "4.48.3 and earlier"),
    ("!=4.50.0", "!=4.50.0"),  # a form with no plain words stays as written, never guessed at
])
def test_a_release_range_reads_in_words(specifier, words):
    assert render.release_words(specifier) == words


def _reader_lines(markdown: str) -> list[str]:
    """The lines a reader reads of an entry page: the fix, the meta line, the Versions list, the wordings."""
    lines = [line for line in markdown.splitlines()
             if line.startswith(("**The fix:**", "- **", "- <code>")) or "{: .ekb-meta }" in line]
    meta = re.search(r"^(.*)\n\{: \.ekb-meta \}$", markdown, re.M)
    return lines + ([meta.group(1)] if meta else [])


def test_no_page_shows_a_release_range_as_a_specifier(real_page_sources):
    """'which transformers >=4.49,<5.13 does not have': a range a reader has to parse."""
    raw = []
    for path, markdown in real_page_sources.items():
        if not path.startswith("errors/transformers/") and path != "migration.md":
            continue
        for line in _reader_lines(markdown) if path != "migration.md" else \
                [row for row in markdown.splitlines() if row.startswith("| ")]:
            said = re.sub(r"<code>.*?</code>|`[^`]*`", "", line)  # code may hold any text
            said = _words(re.sub(r"\[[^\]]*\]\([^)]*\)", "", said))  # and a tag's attributes, the verifier's
            if line.startswith("- <code>"):  # another wording: its releases, not the author's note after them
                said = said.split(" — ", 1)[-1].split(";")[0]
            if SPECIFIER.search(said):
                raw.append((path, said[:160]))
    assert not raw, raw[:6]


def test_a_replacement_that_names_its_own_releases_is_never_followed_by_a_since(real_page_sources):
    """'use `cache.get_max_cache_shape()` (4.46 – 5.19); `cache.get_max_length()` again from 5.13 (since 4.46.3)':
    the since read as the last clause's, which it contradicts."""
    glued = []
    for path, markdown in real_page_sources.items():
        rows = [line for line in markdown.splitlines()
                if line.startswith(("**The fix:**", "- **Replacement:**", "| "))]
        for line in rows:
            for cell in line.split(" | "):
                said = _words(cell)
                head = said.split("since")[0]
                if "since" in said and re.search(r"\b\d+\.\d+", re.sub(r"\bsince .*", "", head)):
                    glued.append((path, said[:160]))
    assert not glued, glued[:6]
    entry = real_page_sources[REMOVED + ".md"]
    assert "4.46.3" in _words(entry.split("## Versions")[1].split("## Verification")[0])  # said, where it is alone


def test_the_terminal_and_the_index_follow_the_pages_rule_for_a_since(capsys):
    """One rule (`errorkb.lookup.since_words`) for every place a replacement is said: the index's one-line fix
    (`errorkb lookup`, the paste box, the hook), `errorkb show` from the shipped index and from a checkout. Before,
    only the page had it: the others still said "again from 5.13 (since 4.46.3)"."""
    from errorkb.cli import main
    from errorkb.lookup import read_index

    entry_id = REMOVED.rsplit("/", 1)[1]
    shipped = ROOT / "transformers_errorkb" / "index.json"
    fix = read_index(json.loads(shipped.read_text(encoding="utf-8"))).items[entry_id]["fix"]  # the hook index `errorkb hook index` wrote (lint checks it)
    assert "again from 5.13" in fix and "since" not in fix, fix
    for argv in (["show", entry_id], ["--root", str(ROOT), "show", entry_id]):
        capsys.readouterr()
        main(argv)
        said = _words(capsys.readouterr().out)
        assert "again from 5.13" in said and "(since" not in said, (argv, said[-600:])


# -- 4. the version matrix in plain words --------------------------------------------------------------------


def _versions(markdown: str) -> str:
    part = markdown.split("## Versions")[1].split("## Verification")[0]
    return _words(re.sub(r"<svg.*?</svg>", "", part, flags=re.S))


def test_an_entry_page_says_in_words_what_the_before_did_where_it_did_not_raise(real_page_sources):
    """4.36-4.37 raised the error from another function, shown only as a green 'fix runs clean' cell whose hover
    text a phone never shows: the page must say it in words, and which releases were not applicable and why."""
    said = _versions(real_page_sources[GAP + ".md"])
    assert "4.36.2 – 4.37.2" in said and "AttentionMaskConverter.to_4d" in said, said
    assert "4.48.3 – 5.24.0" in said and "is not defined" in said, said
    assert "4.38.2" in said and "exited normally" in said, said
    removed = _versions(real_page_sources[REMOVED + ".md"])
    assert "4.36.2 – 4.48.3" in removed and "still exists" in removed, removed


def test_releases_that_did_not_run_are_named_with_why():
    """A release the matrix did not run is named, with its reason, never left to a hover text."""
    states = (ReleaseState("4.36.2", State.NOT_RUN, "environment set-up failed: no wheel"),
              ReleaseState("4.37.2", State.NOT_RUN, "environment set-up failed: no wheel"),
              ReleaseState("4.38.2", State.RAISES, "raised ValueError from Cache.f (line 3)"),
              ReleaseState("4.39.3", State.NOT_APPLICABLE, "source.function: Cache.f is not defined in m (line 9)"),
              ReleaseState("4.40.2", State.NOT_APPLICABLE, "source.function: Cache.f is not defined in m (line 12)"))
    lines = render.release_story(states)
    assert [(line.releases, line.words) for line in lines] == [
        ("4.36.2 – 4.37.2", "not run"), ("4.39.3 – 4.40.2", "not applicable")], lines
    assert "no wheel" in lines[0].why and "is not defined" in lines[1].why, lines
    assert render.release_story(states[2:3]) == []  # where it raised as documented, the Raises line says it


def test_a_since_that_is_the_oldest_release_tested_reads_as_no_arrival(real_page_sources):
    """'use a `DynamicCache` filled with ... (since 4.36.2)': 4.36.2 is only the oldest release the version matrix
    ran, not where the replacement arrived."""
    assert "since" not in render.replacement_words("`a()`", "4.36.2", "4.36.2")
    assert render.replacement_words("`a()`", "4.40.0", "4.36.2").endswith("(since 4.40.0)")
    assert "since" not in render.replacement_words("`a()` (4.46 – 5.19)", "4.46.3", "4.36.2")
    fix = re.search(r"^\*\*The fix:\*\* (.*)$", real_page_sources["errors/transformers/legacy-tuple-generate.md"], re.M)
    assert fix and "since 4.36.2" not in fix.group(1), fix
    versions = _versions(real_page_sources["errors/transformers/legacy-tuple-generate.md"]).replace("**", "")
    assert "exists from: 4.36.2 (declared; the oldest release the version matrix ran)" in versions, versions
