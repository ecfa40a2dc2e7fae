"""What a reader sees, round seven (session 59): the site read as its three users read it.

- The JSON API's `verification` list gave a check that never ran (no CUDA device, not applicable) a `verified_at`:
  a time it was "verified" at, where its badge rightly carries no date. (Its `reason` is the page's, `said`, with an
  older record's folders unrooted: kept so by a test here, now that records are stored unrooted.)
- The verification page's "Reports read" line counted passed, failed and not run, and left the not-applicable
  checks out: its numbers did not add up to the checks the table above it counts (604 + 0 + 604 of 1,532).
- An entry's description (what a search result shows under its title) dropped the message's placeholders to
  nothing: "a list of length  , but the Cache currently has   layers".
"""

from __future__ import annotations

import re

from errorkb.site import render
from tests.site.sitekb import record, write_report
from tests.site.test_render import ENTRY, all_pass, page_for, pages_of

SITE = "/home/me/venv/lib/python3.11/site-packages/transformers/cache_utils.py"


def _documented(project, *extra: dict) -> dict[str, object]:
    write_report(project, [*all_pass(project), *extra])
    return render.entry_document(page_for(project))


def _verification(document: dict[str, object], check: str) -> dict[str, object]:
    return next(one for one in document["verification"] if one["id"] == check)  # type: ignore[union-attr]


def test_the_json_gives_no_verification_time_to_a_check_that_did_not_run(project):
    document = _documented(project,
                           record(project, ENTRY, "before", "before.py", device="cuda", outcome="not-run",
                                  reason="no CUDA device"),
                           record(project, ENTRY, "before", "before.py", target="upstream", outcome="not-applicable",
                                  reason="transformers 5.15.1 does not raise this error (it raises in 4.36 only)"))
    assert _verification(document, f"{ENTRY}::before[bundled-cuda]")["verified_at"] is None
    assert _verification(document, f"{ENTRY}::before[upstream-cpu]")["verified_at"] is None
    ran = _verification(document, f"{ENTRY}::before[bundled-cpu]")
    assert ran["outcome"] == "pass" and ran["verified_at"] == "2026-11-30T10:00:00+00:00"
    # As its badge says: no date where nothing ran.
    badge = next(b for b in document["badges"] if (b["target"], b["device"]) == ("bundled", "cuda"))
    assert badge["date"] is None


def test_the_json_says_the_reason_a_reader_is_told(project):
    """A record written before records were unrooted at the source keeps its machine's folders; the JSON says the
    reason as the page does (`said`): the file from `site-packages/` on."""
    failed = record(project, ENTRY, "after", "after.py", target="upstream", outcome="fail", code="raised",
                    reason=f"raised ImportError: cannot import name 'X' from 'transformers.cache_utils' ({SITE})")
    document = _documented(project, failed)
    said = _verification(document, f"{ENTRY}::after[upstream-cpu]")["reason"]
    assert said == ("raised ImportError: cannot import name 'X' from 'transformers.cache_utils' "
                    "(…/site-packages/transformers/cache_utils.py)"), said
    assert "/home/me" not in str(document)


def test_the_reports_read_line_counts_every_outcome(project):
    """The line under the environments names every outcome the report holds, so its numbers add up to its checks."""
    write_report(project, [*all_pass(project),
                           record(project, ENTRY, "before", "before.py", device="cuda", outcome="not-run",
                                  reason="no CUDA device"),
                           record(project, ENTRY, "before", "before.py", target="upstream", outcome="not-applicable",
                                  reason="transformers 5.15.1 does not raise this error (it raises in 4.36 only)")])
    _, files = pages_of(project)
    page = next(f.content for f in files if f.path == "verification.md")
    line = next(one for one in page.splitlines() if one.startswith("Reports read:"))
    assert "(4 passed, 0 failed, 1 not run, 1 not applicable)" in line, line


def test_the_description_marks_where_the_message_has_slots(project):
    """What a search result shows under the title: the message's words with an ellipsis where a value goes, never
    the words run together or spaces where the values were."""
    write_report(project, all_pass(project))
    markdown = render.render_entry(page_for(project), edit_url="https://example.test/edit/x.yml")
    description = next(line for line in markdown.splitlines() if line.startswith("description: "))
    assert "a list of length …, but the Cache currently has … layers" in description, description
    assert not re.search(r"\s{2}|\s,", description), description


def test_the_environments_table_lists_releases_in_order():
    """The verification page's environments: within a day, a target and a device, the newest release first (rows came
    in the order the report held their records)."""
    from errorkb.results.records import CheckRecord
    from errorkb.site import evidence

    def ran(release: str) -> CheckRecord:
        return CheckRecord.model_validate({
            "id": f"e{release}::before[upstream-cpu]", "entry": f"e{release}", "role": "before",
            "snippet": "snippets/e/before.py", "target": "upstream", "device": "cpu", "outcome": "pass",
            "code": "raised-as-documented", "reason": "ok", "expected": "x", "verified_at": "2026-12-07T05:00:00+00:00",
            "environment": {"python": "3.11.7", "library_version": release}})

    rows = evidence.environments([ran(release) for release in ("4.48.3", "5.15.1", "4.9.0", "4.37.2", "4.52.4")])
    assert [row["library"] for row in rows] == ["5.15.1", "4.52.4", "4.48.3", "4.37.2", "4.9.0"]


def test_the_entry_pages_table_dates_only_the_checks_that_ran(project):
    """The table at the foot of an entry's page said a date for a check that did not run ("real transformers · cuda |
    not run | 2026-12-07"), under "Each check ran one snippet in a fresh process": as its badge, no date there."""
    write_report(project, [*all_pass(project),
                           record(project, ENTRY, "before", "before.py", device="cuda", outcome="not-run",
                                  reason="no CUDA device", when="2026-12-01T10:00:00+00:00")])
    markdown = render.render_entry(page_for(project), edit_url="https://example.test/edit/x.yml")
    table = markdown[markdown.index("## Verification"):]
    row = next(line for line in table.splitlines() if "· cuda |" in line)
    assert "| not run | — |" in row and "2026-12-01" not in row, row
    assert "Each check ran one snippet" not in table
    ran = next(line for line in table.splitlines() if line.startswith("| <code>before</code>") and "· cpu |" in line)
    assert "| passed | 2026-11-30 |" in ran, ran


def test_the_migration_page_claims_no_fix_ran_clean_that_did_not(tmp_path):
    """The migration page said of every row "an entry whose broken code was run ... and whose fix was run clean" (and
    its description "each verified"), whatever verification found: a row whose fix failed was said to have run clean.
    It says what `errorkb verify` runs, and leaves the verdict to each row's Verified column."""
    from tests.site.sitekb import site_project

    removed = "get-max-length-removed"
    folder = site_project(tmp_path, ids=(removed,))
    write_report(folder, [record(folder, removed, "before", "before.py"),
                          record(folder, removed, "after", "after.py", outcome="fail",
                                 reason="raised AttributeError: 'DynamicCache' object has no attribute 'get_max_cache_shape'"),
                          record(folder, removed, "guard:guard_version_tolerant", "guard_version_tolerant.py")])
    _, files = pages_of(folder)
    page = next(f.content for f in files if f.path == "migration.md")
    said = " ".join(page.split())
    assert "fix was run clean" not in said and "each verified" not in said, said[:800]
    row = next(line for line in page.splitlines() if removed in line and line.startswith("|"))
    assert "ekb-fail" in row, row


def test_a_snippet_that_failed_verification_is_never_said_not_verified_yet(project):
    """An author whose before and after both failed `errorkb verify` read, under each, "Not verified yet: no
    verification report shows this snippet raising the error yet. Run errorkb verify": as if nothing had run. The
    page says the check failed, where and when, and why (what the before raised instead, without the folders of the
    machine that ran it)."""
    other = "cannot import name 'X' from 'transformers.cache_utils' (/home/me/venv/lib/python3.11/site-packages/" \
            "transformers/cache_utils.py)"
    checks = all_pass(project)
    checks[0] = record(project, ENTRY, "before", "before.py", outcome="fail", code="wrong-exception",
                       reason=f"raised ImportError: {other}; expected ValueError",
                       exception={"type": "ImportError", "message": other})
    checks[1] = record(project, ENTRY, "after", "after.py", outcome="fail", code="call-raised",
                       reason="a call of Cache.early_initialization raised ValueError: boom")
    write_report(project, checks)
    markdown = render.render_entry(page_for(project), edit_url="https://example.test/edit/x.yml")
    example = markdown[markdown.index("## Example fix"):markdown.index("## Solutions")]
    assert "Not verified yet" not in example, example
    assert example.count('!!! failure "Failed when verified (reimplemented transformers 5.15.1 · cpu') == 2, example
    assert "ImportError: cannot import name &#39;X&#39;" in example or "ImportError: cannot import name 'X'" in example
    assert "…/site-packages/transformers/cache_utils.py" in example and "/home/me" not in example
    assert "a call of Cache.early_initialization raised ValueError: boom" in example


def test_a_snippet_no_check_ran_is_still_not_verified_yet(project):
    """With no record of a role, the page still says so, and how to run it."""
    write_report(project, all_pass(project)[2:])
    markdown = render.render_entry(page_for(project), edit_url="https://example.test/edit/x.yml")
    example = markdown[markdown.index("## Example fix"):markdown.index("## Solutions")]
    assert example.count('!!! warning "Not verified yet"') == 2 and "Failed when verified" not in example
