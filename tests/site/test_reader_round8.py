"""What a reader sees, round eight (session 59): a failed check's words on the entry page.

- The release strip's "other outcome" told a reader nothing where the entry declares the error does not raise there
  (CacheConfig on 4.42 - 4.55: its before ran clean, its after failed): the cell says what was observed.
- A multi-line reason ("message differs" / expected / actual) ran together on one line of the verification table:
  its lines are kept, each escaped, their number bounded.
- A record written before records were stored unrooted kept its bundled implementation's folders
  ("/work/main/transformers_errorkb/..."): the views unroot them by the verifier's own rule (`records.unrooted`).
"""

from __future__ import annotations

from errorkb.results.matrix import ReleaseState, State
from errorkb.site import picture, render
from tests.site.sitekb import record, write_report
from tests.site.test_render import ENTRY, all_pass, page_for

SITE = "/home/me/venv/lib/python3.11/site-packages/transformers/cache_utils.py"


def test_the_strip_says_what_was_observed_where_the_error_does_not_raise():
    """A release declared not to raise, where the before ran clean and the after failed: no "other outcome"."""
    states = [ReleaseState("4.41.2", State.RAISES, "raised ImportError at the use of CacheConfig", None),
              ReleaseState("4.42.4", State.NEITHER, "exited normally; expected ImportError from CacheConfig",
                           picture.Outcome.FAIL),
              ReleaseState("4.56.2", State.RAISES, "raised ImportError at the use of CacheConfig",
                           picture.Outcome.PASS)]
    drawn = picture.strip(states, "<4.42 || >=4.56", lambda release: release != "4.42.4")
    cell = drawn.cells[1]
    said = f"{cell.label} {cell.title} {drawn.summary} {picture.WORDS[State.NEITHER]}"
    assert "other outcome" not in said.lower(), said
    assert cell.label == "not raised, fix not clean", cell.label
    # What was observed, in the hover text: the before's own words and the after's outcome.
    assert "before: exited normally" in cell.title and "after: failed" in cell.title, cell.title
    # Said so by the words of every state, never that the after failed where it may not have run.
    assert "failed" not in picture.WORDS[State.NEITHER][0]


def test_a_multi_line_reason_keeps_its_lines_in_the_table(project):
    reason = ("message differs\n  expected: {cls}.forward() got an unexpected keyword argument 'past_key_values'\n"
              "  actual:   <script>alert(1)</script> missing 1 required positional argument")
    checks = all_pass(project)
    checks[0] = record(project, ENTRY, "before", "before.py", outcome="fail", code="message-differs", reason=reason)
    write_report(project, checks)
    markdown = render.render_entry(page_for(project), edit_url="https://example.test/edit/x.yml")
    table = markdown[markdown.index("## Verification"):]
    row = next(line for line in table.splitlines() if line.startswith("| <code>before</code>") and "· cpu |" in line)
    assert "message differs<br>" in row and "<br>actual:" in row.replace("<br> ", "<br>"), row
    assert "<script>" not in row, row


def test_a_reason_of_many_lines_is_bounded():
    lines = [f"line {index}" for index in range(200)]
    shown = str(render.shortened("\n".join(lines)))
    assert "line 0<br>" in shown and "line 199" not in shown, shown[:300]
    assert shown.count("<br>") <= render.SHORT_LINES, shown.count("<br>")
    assert "more lines" in shown


def test_an_older_records_bundled_paths_are_unrooted(project):
    from errorkb.core.project import load_project

    package = load_project(project).library.bundled.replace(".", "/")
    where = f"/work/main/{package}/cache_utils.py"
    checks = all_pass(project)
    checks[0] = record(project, ENTRY, "before", "before.py", outcome="fail", code="wrong-exception",
                       reason=f"raised ValueError: bad ({where}); expected ValueError",
                       exception={"type": "ValueError", "message": f"bad ({where})"})
    write_report(project, checks)
    page = page_for(project)
    markdown = render.render_entry(page, edit_url="https://example.test/edit/x.yml")
    document = render.entry_document(page)
    assert "/work/main" not in markdown and "/work/main" not in str(document)
    assert f"({package}/cache_utils.py)" in markdown


def test_one_rule_unroots_an_environment_and_the_bundled_package():
    from errorkb.results.records import unrooted

    text = f"a ({SITE}) b (/srv/ci/checkout/pkg/impl/cache.py) c (/srv/ci/checkout/other/x.py)"
    assert unrooted(text, bundled="pkg.impl") == ("a (…/site-packages/transformers/cache_utils.py) b (pkg/impl/cache.py)"
                                                   " c (/srv/ci/checkout/other/x.py)")
    assert unrooted(text) == text.replace(SITE, "…/site-packages/transformers/cache_utils.py")
