"""Stale results, round seventeen: a report's record naming snippet bytes that are not the snippet's now.

A record is fresh while the inputs it was made from (`inputs`: the entry and every byte of its snippet folder)
are the inputs now; those inputs cover the snippet's bytes, so a record whose `inputs` hold but whose
`snippet_sha256` names other bytes is no run of the snippet shown (a report edited by hand, or merged from a
run of other bytes): its pass was shown "verified", beside code it never ran. It is stale, shown as such.
"""

from __future__ import annotations

from errorkb.results.report import latest_results, read_reports
from errorkb.site import evidence
from tests.site.sitekb import record, site_project, write_report

ENTRY = "head-dim-list-length"
ROLES = {"before": "before.py", "after": "after.py", "guard:guard_check_lengths": "guard_check_lengths.py",
         "guard:guard_per_layer_from_config": "guard_per_layer_from_config.py"}


def _page(project):
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.site.render import build_pages

    loaded = load_project(project)
    reports, _ = read_reports(project / "reports", ("cpu",))
    return next(page for page in build_pages(loaded, load_project_entries(loaded).entries, latest_results(reports))
                if page.entry.id == ENTRY)


def test_a_record_naming_other_snippet_bytes_is_stale_whatever_its_inputs_say(tmp_path):
    from errorkb.results.records import CheckRecord

    one = CheckRecord.model_validate(record(site_project(tmp_path), ENTRY, "after", "after.py"))
    fresh = {"after": evidence.fresh_key(one.inputs or "", one.snippet_sha256)}
    assert not evidence.is_stale(one, fresh)
    assert evidence.is_stale(one.model_copy(update={"snippet_sha256": "0" * 64}), fresh)
    assert evidence.is_stale(one.model_copy(update={"inputs": "1" * 64}), fresh)
    assert not evidence.is_stale(one, {"after": one.inputs or ""})  # the inputs alone, as before


def test_the_page_of_a_record_naming_other_snippet_bytes_never_says_verified(tmp_path):
    project = site_project(tmp_path)
    forged = [{**record(project, ENTRY, role, file), "snippet_sha256": "0" * 64} for role, file in ROLES.items()]
    write_report(project, forged)
    page = _page(project)
    assert all(page.is_stale(one) for one in page.records), [one.id for one in page.records]
    from errorkb.site.render import badges

    cpu = [badge for badge in badges(page) if badge.device == "cpu" and badge.target == "bundled"]
    assert cpu and all(badge.stale for badge in cpu), cpu


def test_the_page_of_records_of_the_snippets_now_says_verified_and_fresh(tmp_path):
    project = site_project(tmp_path)
    write_report(project, [record(project, ENTRY, role, file) for role, file in ROLES.items()])
    page = _page(project)
    assert page.records and not any(page.is_stale(one) for one in page.records)
