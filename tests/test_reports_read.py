"""The site reads only the reports the verifier writes (`REPORT_FILES`) and no record dated in the future."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from errorkb.results.report import CLOCK_SKEW, read_reports, report_files
from tests.site.sitekb import record, site_project, write_report

ENTRY = "head-dim-list-length"


def test_the_list_of_report_files_is_the_standing_report_and_the_gpu_runners():
    assert report_files(("cpu", "cuda")) == ("latest.json", "cuda.json")


def test_a_report_file_nobody_expects_is_ignored_and_said(tmp_path):
    project = site_project(tmp_path)
    write_report(project, [record(project, ENTRY, "after", "after.py")])
    forged = [record(project, ENTRY, "after", "after.py", device="cuda", reason="verified on an H100")]
    write_report(project, forged, name="zz-cuda-h100.json")
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert [check.device for report in reports for check in report.checks] == ["cpu"]
    assert any("zz-cuda-h100.json: ignored" in problem for problem in problems)


def test_the_gpu_runners_report_is_read(tmp_path):
    project = site_project(tmp_path)
    write_report(project, [record(project, ENTRY, "after", "after.py", device="cuda")], name="cuda.json")
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert problems == [] and [check.device for report in reports for check in report.checks] == ["cuda"]


def test_records_dated_in_the_future_are_ignored(tmp_path):
    project = site_project(tmp_path)
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    ahead = (now + CLOCK_SKEW + timedelta(minutes=1)).isoformat()
    within = (now + CLOCK_SKEW - timedelta(minutes=1)).isoformat()
    write_report(project, [record(project, ENTRY, "before", "before.py", when="2026-11-30T10:00:00+00:00"),
                           record(project, ENTRY, "after", "after.py", when=ahead),
                           record(project, ENTRY, "guard:guard_check_lengths", "guard_check_lengths.py", when=within),
                           record(project, ENTRY, "guard:guard_per_layer_from_config", "guard_per_layer_from_config.py",
                                  when="not a date")])
    (report,), problems = read_reports(project / "reports", ("cpu", "cuda"), now=now)
    assert sorted(check.role for check in report.checks) == ["before", "guard:guard_check_lengths"]
    assert problems == [f"{project / 'reports' / 'latest.json'}: 2 records dated in the future ignored"]


def test_a_report_created_in_the_future_is_ignored(tmp_path):
    project = site_project(tmp_path)
    path = write_report(project, [record(project, ENTRY, "after", "after.py")])
    path.write_text(path.read_text().replace("2026-11-30T10:00:00+00:00", "2099-01-01T00:00:00+00:00"))
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"), now=datetime(2026, 12, 1, tzinfo=UTC))
    assert reports == [] and "in the future" in problems[0]
