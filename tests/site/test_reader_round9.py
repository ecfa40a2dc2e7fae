"""What a reader sees, round nine (session 60): the site never claims more than the reports hold.

- The coverage page counted a raise site as covered when an entry named it, even where that entry's before failed,
  did not run, or passed on a snippet edited since: it said "documented" and showed a link, and a reader took the link
  for a verified error. Each row now says the entry's standing in the badges' words, and the count of verified sites
  stands apart from the count of documented ones (`evidence.standing`, `Badge.verified`: one owner of the rule); the
  list of errors counted a stale pass as verified, and the JSON API left its clients to tell.
- A stale pass was shown like a pass: green in `errorkb show`, "✓ <where>" in every list's chip (hatching only), and
  under a snippet it hid a fresh failure of the same snippet on another target.
- A stale version matrix was said stale only under the Versions list: the heat map's rows, "verified in" of another
  wording and "the version matrix agrees" said nothing of it; `errorkb show` neither, nor where the matrix raised
  nowhere or could not run. The migration table showed a declared release like a measured one.
- Less than a reader needs: why a badge is failing lived in a hover text; "Also seen as" ignored the report's own
  checks of a wording, and said "no check has run" on a device where one had.
"""

from __future__ import annotations

import re

import pytest

from tests.site.sitekb import record, write_report
from tests.site.test_render import CAPTURED, ENTRY, all_pass, pages_of

OTHER = "num-heads-list-length"
OTHER_FILES = {"before": "before.py", "after": "after.py"}


def coverage_markdown(project) -> str:
    _, files = pages_of(project)
    return next(one.content for one in files if one.path == "coverage.md")


def row_of(markdown: str, entry_id: str) -> str:
    return next(line for line in markdown.splitlines() if f"/{entry_id}.md)" in line)


def checks_of(project, entry_id: str, files: dict[str, str], **kwargs) -> list[dict]:
    return [record(project, entry_id, role, file, **kwargs) for role, file in files.items()]


def verified_count(markdown: str) -> int:
    said = re.search(r"(\d+)\*\* (?:of them )?verified", markdown)
    assert said, "the coverage page says no count of verified raise sites"
    return int(said.group(1))


def test_a_failing_entry_documents_its_raise_site_but_does_not_verify_it(project):
    failing = checks_of(project, OTHER, OTHER_FILES)
    failing[0] = record(project, OTHER, "before", "before.py", outcome="fail", code="wrong-exception",
                        reason="exited normally; expected ValueError")
    write_report(project, all_pass(project) + failing)
    markdown = coverage_markdown(project)
    assert "verified" in row_of(markdown, ENTRY) and "failing" not in row_of(markdown, ENTRY), row_of(markdown, ENTRY)
    row = row_of(markdown, OTHER)
    assert "failing" in row, row
    assert not re.search(r"✓|(?<!not )(?<!partly )verified", row), row
    assert "**2 of" in markdown  # both documented
    assert verified_count(markdown) == 1


@pytest.mark.parametrize("case", ["not run", "stale"])
def test_an_entry_not_run_or_stale_is_not_counted_verified(project, case):
    checks = all_pass(project, sha="0" * 64) if case == "stale" else []
    write_report(project, checks)
    markdown = coverage_markdown(project)
    row = row_of(markdown, ENTRY)
    assert case in row, row
    assert verified_count(markdown) == 0


def test_the_list_of_errors_counts_no_stale_pass_as_verified(project):
    """"N verified on at least one target and device" counted a pass on a snippet edited since."""
    from errorkb.site import render

    write_report(project, all_pass(project, sha="0" * 64))
    pages, _ = pages_of(project)
    said = re.search(r"(\d+) verified on at least one target", render.render_index(pages))
    assert said and said.group(1) == "0", said
    write_report(project, all_pass(project))
    pages, _ = pages_of(project)
    said = re.search(r"(\d+) verified on at least one target", render.render_index(pages))
    assert said and said.group(1) == "1", said


@pytest.mark.parametrize("role", ["before", "after"])
def test_a_pass_never_hides_a_fresh_failure_of_the_same_snippet(project, role):
    """A snippet edited since it passed on one target, then re-verified and failing on another: its tab showed the
    old pass ("Raised when verified", "Ran clean when verified") and nothing of the failure a reader's copy meets."""
    from errorkb.site import render
    from tests.site.test_render import FILES, page_for

    checks = all_pass(project)
    checks = [one for one in checks if one["role"] != role]
    checks.append(record(project, ENTRY, role, FILES[role], target="upstream", sha="0" * 64,
                         exception=CAPTURED if role == "before" else None))
    checks.append(record(project, ENTRY, role, FILES[role], outcome="fail", code="exited-normally",
                         reason="exited normally; expected ValueError from Cache.early_initialization"
                         if role == "before" else "raised ValueError: boom"))
    write_report(project, checks)
    markdown = render.render_entry(page_for(project), edit_url=None)
    tab = markdown[markdown.index(f'=== "{role.capitalize()}"'):]
    tab = tab[:tab.index('=== "After"')] if role == "before" else tab[:tab.index("## Solutions")]
    assert "Failed when verified" in tab, tab


def test_a_stale_failure_does_not_show_beside_a_fresh_pass(project):
    from errorkb.site import render
    from tests.site.test_render import page_for

    checks = all_pass(project)
    checks.append(record(project, ENTRY, "before", "before.py", target="upstream", outcome="fail", sha="0" * 64,
                         code="exited-normally", reason="exited normally; expected ValueError"))
    write_report(project, checks)
    markdown = render.render_entry(page_for(project), edit_url=None)
    assert "Raised when verified" in markdown and "Failed when verified" not in markdown


def terminal_text(page, colour: bool = False) -> str:
    import io

    from rich.console import Console

    from errorkb.site import terminal

    out = io.StringIO()
    console = Console(file=out, width=160, force_terminal=colour, color_system="standard" if colour else None)
    console.print(terminal._verification(page))
    console.print(terminal._releases(page))
    return out.getvalue()


def test_the_terminal_never_colours_a_stale_pass_as_a_pass(project):
    """`errorkb show` printed "✓ verified · stale" in the green of a fresh pass."""
    from tests.site.test_render import page_for

    write_report(project, all_pass(project, sha="0" * 64))
    line = next(one for one in terminal_text(page_for(project), colour=True).splitlines() if "stale" in one)
    assert "\x1b[32m" not in line, repr(line)
    write_report(project, all_pass(project))
    line = next(one for one in terminal_text(page_for(project), colour=True).splitlines() if "verified" in one)
    assert "\x1b[32m" in line, repr(line)


def test_the_terminal_says_what_the_page_says_of_the_version_matrix(project):
    """`errorkb show` printed the matrix's "raises in (measured)" with no word that those results are stale, and
    nothing where the matrix ran and the before raised nowhere, or where it could not run the before at all."""
    from errorkb.results.keys import STALE_WHY
    from errorkb.site import render
    from tests.site.test_render import page_for

    page = page_for(project)
    page.versions = render.VersionRange("5.5.1 – 5.24.0", "5.5.1 – 5.24.0", None, "5.24.0", 66,
                                        stale="in all 66 releases measured")
    text = " ".join(terminal_text(page).split())
    assert "raises in (measured) 5.5.1 – 5.24.0" in text and "stale in all 66 releases measured" in text, text
    assert " ".join(STALE_WHY.split()) in text
    page.versions = render.VersionRange("", "", None, "5.24.0", 66)
    assert "none of the 66 releases" in " ".join(terminal_text(page).split())
    page.versions = render.VersionRange("", "", None, None, 0, not_run="it needs a cuda device")
    assert "not run by the version matrix it needs a cuda device" in " ".join(terminal_text(page).split())


STALE = "in all 3 releases measured"
MEASURED = ("5.5.1", "5.6.0", "5.7.0")


def matrix_page(project, stale: str):
    from errorkb.results.matrix import ReleaseState, State
    from errorkb.site import render
    from tests.site.test_render import page_for

    page = page_for(project)
    page.versions = render.VersionRange("5.5.1 – 5.7.0", "5.5.1 – 5.7.0", None, "5.7.0", 3, stale=stale,
                                        wordings=((1, "5.5.1 – 5.7.0"),))
    page.states = tuple(ReleaseState(one, State.RAISES, "raised as documented", None) for one in MEASURED)
    return page


@pytest.mark.parametrize("stale", ["", STALE])
def test_a_stale_matrix_row_is_said_so_in_the_heat_map(project, stale):
    """The verification page's heat map drew a row measured on other inputs than the entry now like a fresh one: the
    entry page said "stale" under its Versions list, the heat map nowhere."""
    from errorkb.core.project import load_project
    from errorkb.site import render

    page = matrix_page(project, stale)
    heat = render.heat_map([page], load_project(project).library, render.VERIFICATION)
    row = heat.groups[0][1][0]
    assert bool(row.stale) is bool(stale)
    markdown = render.render_verification([page], load_project(project).library)
    line = next(one for one in markdown.splitlines() if ENTRY in one and "ekb-heat__row" in one)
    assert ("stale" in line) is bool(stale), line


def test_a_wording_seen_only_by_a_stale_matrix_is_not_called_verified(tmp_path):
    """"Also seen as ...; **verified** in 5.5.1 – 5.7.0" from a matrix whose results are stale."""
    from errorkb.site import render
    from tests.site.sitekb import site_project
    from tests.site.test_render import page_for

    entry_id = "cache-only-has-0-layers"
    project = site_project(tmp_path, ids=(entry_id,))
    page = page_for(project, entry_id)
    for stale, verified in (("", True), (STALE, False)):
        page.versions = render.VersionRange("5.5.1 – 5.7.0", "", None, "5.7.0", 3, stale=stale,
                                            wordings=((1, "4.56.2"),))
        section = render.render_entry(page).split("## Also seen as", 1)[1].split("\n## ", 1)[0]
        first = next(line for line in section.splitlines() if line.startswith("- "))
        assert ("**verified** in 4.56.2" in first) is verified, first
        if not verified:
            assert "4.56.2" in first and "stale" in first, first
        # "the version matrix agrees" with the declared range: said of a stale matrix only with its staleness.
        declared = next(line for line in render.render_entry(page).splitlines() if "**Declared to raise in:**" in line)
        assert "agrees" in declared and ("stale" in declared) is not verified, declared


def test_the_migration_table_tells_a_declared_release_from_a_measured_one(tmp_path):
    """"Gone in" and "Worked until" showed an entry's declared release where the version matrix never ran, in the
    same words as a measured one: a release the page named that no check ran."""
    from errorkb.core.project import load_project
    from errorkb.site import render
    from tests.site.sitekb import site_project
    from tests.site.test_render import page_for

    entry_id = "import-offloadedcache-removed"
    project = site_project(tmp_path, ids=(entry_id,))
    library = load_project(project).library
    page = page_for(project, entry_id)
    row = render.migration_rows([page])[0]
    assert "declared" in row.gone and row.until == "4.57.6 (declared)", row
    page.versions = render.VersionRange("5.0.0 – 5.24.0", "", None, "5.24.0", 60, worked_until="4.57.6")
    row = render.migration_rows([page])[0]
    assert "declared" not in row.gone + row.until, row
    assert "(declared)" in render.render_migration([page_for(project, entry_id)], library)


def test_a_stale_verdict_in_a_list_says_stale_in_words(project):
    """The lists' chips (all errors, by exception, by API, tags, migration) showed a stale pass as "✓ <where>", its
    staleness only a faint hatching and a hover text: read aloud, or on a phone, a pass like any other."""
    from errorkb.site import render

    write_report(project, all_pass(project, sha="0" * 64))
    pages, _ = pages_of(project)
    for markdown in (render.render_index(pages), render.render_by_exception(pages), render.render_by_api(pages)):
        row = next(line for line in markdown.splitlines() if f"/{ENTRY}.md)" in line and "ekb-mini" in line)
        chips = re.findall(r'<span class="ekb-mini ekb-pass(?: |&#32;)ekb-stale"[^>]*>([^<]*)</span>', row)
        assert chips and all("stale" in chip for chip in chips), row


def test_why_a_badge_fails_is_said_under_the_badges_not_only_on_hover(project):
    """A failing guard made the badge "failing" with its reason in a hover text only: a phone shows none, and the
    snippet tabs speak only of the before and the after; the reader learnt why at the foot of the page, if at all."""
    from errorkb.site import render
    from tests.site.test_render import page_for

    checks = all_pass(project)
    checks[2] = record(project, ENTRY, "guard:guard_check_lengths", "guard_check_lengths.py", outcome="fail",
                       code="raised", reason="raised TypeError: guard tripped on <its own> input")
    write_report(project, checks)
    markdown = render.render_entry(page_for(project))
    top = markdown[:markdown.index("## What it means")]
    visible = re.sub(r'title="[^"]*"', "", top)
    assert "guard tripped on" in visible, top[-1500:]
    assert "<its own>" not in visible  # the report's text, escaped


def test_the_json_api_says_which_badges_verify_the_entry_as_it_is(project):
    """api/errors/<id>.json gave a stale pass as `"outcome": "pass"` beside `"stale": true`: a client reading the
    outcome took it for verified. Each badge carries `verified`, the site's own rule (`Badge.verified`)."""
    from errorkb.site import render
    from tests.site.test_render import page_for

    for sha, verified in (("0" * 64, False), (None, True)):
        write_report(project, all_pass(project, sha=sha))
        document = render.entry_document(page_for(project))
        cpu = next(one for one in document["badges"] if (one["target"], one["device"]) == ("bundled", "cpu"))
        assert cpu["outcome"] == "pass" and cpu["verified"] is verified, cpu
        assert not any(one["verified"] for one in document["badges"] if one["device"] == "cuda")


def test_also_seen_as_says_what_the_checks_on_its_device_did(tmp_path):
    """A wording of another device: "not verified yet: it needs a cuda device, and no check has run on one", said
    whatever the report held: a check on a cuda device that raised this very wording (a pass, `wording` 1), or one
    that ran and failed, was never seen by the line, which read the version matrix only."""
    from errorkb.site import render
    from tests.site.sitekb import site_project
    from tests.site.test_render import page_for

    entry_id = "static-cache-overflow"
    project = site_project(tmp_path, ids=(entry_id,))

    def line() -> str:
        section = render.render_entry(page_for(project, entry_id)).split("## Also seen as", 1)[1]
        return next(one for one in section.splitlines() if one.startswith("- "))

    assert "no check has run on one" in line()
    raised = record(project, entry_id, "before", "before.py", device="cuda", when="2026-12-04T10:00:00+00:00")
    raised["wording"] = 1
    write_report(project, [raised])
    assert "**verified** on" in line() and "cuda" in line() and "2026-12-04" in line(), line()
    failed = record(project, entry_id, "before", "before.py", device="cuda", outcome="fail", code="raised",
                    reason="raised RuntimeError: CUDA error: device-side assert triggered")
    write_report(project, [failed])
    assert "no check has run on one" not in line() and "verified** on" not in line(), line()
