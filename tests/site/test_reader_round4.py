"""What a reader sees, round four (session 56): one wording of a release range wherever one is said (the pages,
the verifier's not-applicable reason that every badge shows, the picture's words for screen readers); a version
state that says what was observed where the before raised the documented words from another function (not a
green "fix runs clean" the after's pass cannot earn); and the migration table read at a laptop's width."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.matrix import ReleaseState, State, read_matrix, release_states
from errorkb.results.records import Code
from errorkb.site import picture, render
from tests.kb import ROOT

GAP = "reused-cache-mask-covers-new-tokens-only"  # 4.36-4.37: the documented words, raised from another function
SPECIFIER = re.compile(r"(?:>=|<=|==|!=|~=|\|\||(?<![-\w])[<>](?=\d))")


# -- 1. one wording of a release range -------------------------------------------------------------------------


def test_one_owner_words_a_release_range_below_the_site_and_the_verifier():
    """The verifier cannot import the site: the words live in core, and the site says them with the same function."""
    from errorkb.core import words

    assert render.release_words is words.release_words
    assert words.release_words(">=4.49,<5.13") == "4.49 – 5.12"


@pytest.mark.parametrize(("specifier", "said"), [
    (">=4.46,<4.47", "4.46"),  # one minor, not "4.46 – 4.46"
    (">=4.40,<4.41 || >=5.20", "4.40, 5.20 and later"),
    (">=4.46.0,<=4.46.0", "4.46.0"),
])
def test_a_range_of_one_release_says_it_once(specifier, said):
    from errorkb.core.words import release_words

    assert release_words(specifier) == said


def test_the_verifiers_not_applicable_reason_words_the_range():
    """'transformers 5.15.1 does not raise this error (it raises in >=4.49,<5.13)': shown in every badge of an
    entry whose range leaves out the pinned release, a specifier the pages otherwise never show."""
    from errorkb.verify.engine import Upstream, Verifier, plan_checks

    project = load_project(ROOT)
    loaded = load_project_entries(project).entries
    verifier = Verifier(project, ["bundled", "upstream"], upstream=Upstream.PINNED, sandbox="off")
    try:
        checks = plan_checks(project, loaded, targets=["bundled", "upstream"], devices=["cpu"])
        reasons = [verdict.reason for verdict in map(verifier.reason_not_run, checks)
                   if verdict is not None and verdict.code is Code.NOT_APPLICABLE]
    finally:
        verifier.close()
    ranged = [reason for reason in reasons if "does not raise this error" in reason]
    assert len(ranged) >= 10, reasons  # the knowledge base has many such entries
    raw = [reason for reason in ranged if SPECIFIER.search(reason)]
    assert not raw, raw[:5]
    assert any(reason.endswith("(it raises in 4.49 – 5.12)") for reason in ranged), ranged


def test_the_pictures_words_for_a_screen_reader_say_the_declared_range_in_words():
    states = [ReleaseState("4.48.3", State.FIX_RUNS), ReleaseState("4.49.0", State.RAISES)]
    said = picture.summary(states, ">=4.49,<5.13")
    assert said.endswith("Declared to raise in 4.49 – 5.12."), said
    assert not SPECIFIER.search(said), said


# -- 2. a version state that says what was observed -------------------------------------------------------------


def test_the_documented_words_from_another_function_are_no_fix_that_runs_clean():
    """reused-cache-mask on 4.36-4.37 (the recorded matrix): the before raised the documented words from
    AttentionMaskConverter.to_4d, not from the documented function; the after ran clean there, which proves nothing
    about this entry's cause. The strip showed a green 'fix runs clean'."""
    project = load_project(ROOT)
    matrix = read_matrix(project)
    assert matrix is not None
    states = {one.release: one for one in release_states(GAP, matrix) or []}
    assert states, "the recorded matrix has the entry"
    for release in ("4.36.2", "4.37.2"):
        one = states[release]
        assert "AttentionMaskConverter.to_4d" in (one.before or ""), one
        assert one.state is State.RAISES_ELSEWHERE, one
        label, meaning = picture.WORDS[one.state]
        assert "fix" not in label and "clean" not in label, label
        assert "another function" in meaning, meaning
    assert states["4.38.2"].state is not State.RAISES_ELSEWHERE  # it exited normally there
    lines = render.release_story(list(states.values()))
    elsewhere = [line for line in lines if line.releases == "4.36.2 – 4.37.2"]
    assert elsewhere and elsewhere[0].words == picture.WORDS[State.RAISES_ELSEWHERE][0], lines


def test_every_state_has_a_colour_a_shape_and_a_swatch():
    """A state added to the matrix is drawn: its words, its shape, its fill in both schemes, its legend swatch."""
    css = (ROOT / "errorkb" / "site" / "assets" / "errorkb.css").read_text(encoding="utf-8")
    for state in State:
        assert state in picture.WORDS and state in picture.SHAPES, state
        assert css.count(f"--ekb-s-{state.value}:") == 2, state  # light and slate
        assert f".ekb-s-{state.value} rect" in css and f".ekb-swatch.ekb-s-{state.value}" in css, state


# -- 3. the migration table at a laptop's width ------------------------------------------------------------------

LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_migration_table_fits_its_column_without_a_scrollbar_of_its_own(visit, reader_site, viewport):
    """At 1280 px the six columns (a long replacement, nowrap chips, code that does not break) were wider than the
    content column: the table scrolled sideways inside its own frame, its last column (Verified) out of sight."""
    _, url = reader_site
    tab = visit()  # the page's layout, not its search (`reader_site`)
    tab.page.set_viewport_size(viewport)
    tab.page.goto(url + "migration/", wait_until="load")
    found = tab.page.evaluate(r"""() => {
        const table = document.querySelector('h2#removals ~ .md-typeset__scrollwrap table');
        const frames = [...document.querySelectorAll('.md-typeset__table, .md-typeset__scrollwrap')]
            .filter((el) => el.contains(table));
        const over = frames.filter((el) => el.scrollWidth > el.clientWidth + 1)
            .map((el) => [el.className, el.scrollWidth, el.clientWidth]);
        const edge = table.closest('.md-content__inner').getBoundingClientRect().right;
        const past = [...table.querySelectorAll('th, td')].filter((el) => el.getClientRects().length
            && el.getBoundingClientRect().right > edge + 0.5).length;
        const seen = [...table.querySelectorAll('tbody td')].filter((td) => td.getClientRects().length
            && td.innerText.trim()).length;
        const split = [...table.querySelectorAll('tbody td:nth-child(3), tbody td:nth-child(4)')].filter((td) => {
            const text = [...td.childNodes].find((n) => n.nodeType === 3 && /\d+(\.\d+)+/.test(n.textContent));
            if (!text) return false;
            const found = text.textContent.match(/\d+(\.\d+)+/);  // the release itself, not "or earlier"
            const range = document.createRange();
            range.setStart(text, found.index); range.setEnd(text, found.index + found[0].length);
            return range.getClientRects().length > 1; }).map((td) => td.innerText);
        return {over, past, seen, split, cells: table.querySelectorAll('tbody td').length,
                page: document.documentElement.scrollWidth - window.innerWidth};
    }""")
    assert found["cells"] > 60 and found["seen"] == found["cells"], found  # every cell shown, saying something
    assert found["over"] == [] and found["past"] == 0 and found["page"] <= 0, found
    assert found["split"] == [], found  # a release ("4.36.2") never broken over two lines to make it fit


# -- 4. a chip never runs past its card ------------------------------------------------------------------------


@pytest.mark.browser
def test_a_pasted_errors_chips_stay_inside_the_answer_on_a_phone(visit, reader_site):
    """'∅ reimplemented transformers 5.15.1 · cpu: not applicable' is one chip that never wrapped its words: at
    390 px it ran 38 px past the answer's card and the screen's edge, its last word cut off."""
    _, url = reader_site
    tab = visit()  # the page's layout, not its search (`reader_site`)
    tab.page.set_viewport_size(PHONE)
    tab.page.goto(url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(
        "TypeError: GPT2LMHeadModel.forward() got an unexpected keyword argument 'past'")
    hit = tab.page.locator(".ekb-lookup__hit").first
    expect(hit.locator(".ekb-mini.ekb-not-applicable")).to_have_count(1)
    found = tab.page.evaluate("""() => {
        const hit = document.querySelector('.ekb-lookup__hit');
        const box = hit.getBoundingClientRect();
        const chips = [...hit.querySelectorAll('.ekb-mini')].map((chip) => chip.getBoundingClientRect());
        return {chips: chips.length, past: chips.filter((r) => r.right > box.right + 0.5 || r.left < box.left - 0.5)
                .map((r) => [Math.round(r.left), Math.round(r.right), Math.round(box.right)]),
                page: document.documentElement.scrollWidth - window.innerWidth};
    }""")
    assert found["chips"] >= 3 and found["past"] == [] and found["page"] <= 0, found


# -- 5. "Gone in" says no more than the matrix saw ----------------------------------------------------------------


def test_gone_in_the_oldest_release_tested_reads_as_or_earlier(real_page_sources):
    """'Gone in 4.36.2' on 25 rows: 4.36.2 is only the oldest release the version matrix ran, and the old code
    raised there already; where it went away was not observed (the "since" of round three, the same class)."""
    matrix = read_matrix(load_project(ROOT))
    assert matrix is not None
    oldest = matrix.ordered_releases()[0]
    rows = [line.split(" | ") for line in real_page_sources["migration.md"].splitlines()
            if line.startswith("| ") and "ekb-cell-label" in line]
    gone = [re.sub(r"<[^>]+>", "", row[2]).replace("Gone in: ", "").strip() for row in rows]
    assert len(gone) > 20, gone
    assert oldest not in gone, [row[1][:80] for row, said in zip(rows, gone, strict=True) if said == oldest][:5]
    assert f"{oldest} or earlier" in gone, gone  # said, with what it means


def test_the_heat_maps_raises_from_says_or_earlier_at_the_oldest_release_tested(real_page_sources):
    """The verification page's heat map: 'Raises from 4.36.2' on 20 rows whose before raised in the oldest release
    the matrix ran; the start was not seen there either. The order (by `starts`) stays a release's."""
    states = [ReleaseState("4.36.2", State.RAISES), ReleaseState("4.37.2", State.RAISES)]
    row = picture.heat_row("gone", "gone/", states)
    later = picture.heat_row("later", "later/", [ReleaseState("4.36.2", State.FIX_RUNS), states[1]])
    assert row.starts == "4.36.2" and row.starts_words == "4.36.2 or earlier", row
    assert later.starts == later.starts_words == "4.37.2", later
    page = real_page_sources["verification.md"]
    assert "<td>4.36.2 or earlier</td>" in page and "<td>4.36.2</td>" not in page, page.count("<td>4.36.2</td>")
