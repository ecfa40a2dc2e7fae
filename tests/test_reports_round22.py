"""Reports, round twenty-two: what a run or a reader does with records it cannot place, and with a newer errorkb's
values.

- a run's update of the standing report (`update_standing`) dropped the records of entries the knowledge base no
  longer has (removed, or renamed since they ran) without a word: now it counts them, and `dropped_said` says which,
  how many and where they still are, for `errorkb verify` to print (cli.py: a patch, /work/brief/redsite22-cli.py.patch);
- a newer minor may add a value (an outcome, a code) as it adds fields; this errorkb refused such a report or matrix
  file as "not a verification report" and told its reader to restore the file from the run that wrote it, which is
  what they had: now it says a newer errorkb wrote it, to upgrade, and to keep the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errorkb.results import matrix as files
from errorkb.results import report as reports
from errorkb.results.report import dropped_said, new_report, now, read_reports, update_standing, write_report
from tests.test_reports_round19 import _newer_matrix, _record


def test_a_run_says_which_records_of_entries_no_longer_in_the_knowledge_base_it_dropped(tmp_path):
    path = tmp_path / "latest.json"
    new_report({"bundled": "b"}, [_record("kept-one"), _record("renamed-one"), _record("renamed-one", "before"),
                                  _record("removed-one")]).write(path)
    fresh = new_report({"bundled": "b"}, [_record("kept-one", stamp=now())])
    written = write_report(path, fresh, lambda on_disk, run: update_standing(on_disk, run, {"kept-one", "new-one"}))
    assert [check.entry for check in written.checks] == ["kept-one"]
    [said] = dropped_said(written, "reports/latest.json")
    assert "3 records of entries" in said and "removed-one, renamed-one" in said, said
    assert "git show HEAD:reports/latest.json" in said


def test_a_run_that_dropped_nothing_says_nothing(tmp_path):
    path = tmp_path / "latest.json"
    new_report({"bundled": "b"}, [_record("kept-one")]).write(path)
    written = write_report(path, new_report({"bundled": "b"}, [_record("kept-one", stamp=now())]),
                           lambda on_disk, run: update_standing(on_disk, run, {"kept-one"}))
    assert dropped_said(written, "reports/latest.json") == []
    assert dropped_said(new_report({"bundled": "b"}, []), "x") == []


@pytest.mark.parametrize("field, value", [("outcome", "flaky"), ("code", "raised-on-a-new-device"),
                                          ("device", ["cpu", "xpu"])])
def test_a_newer_minor_report_with_a_value_this_errorkb_does_not_know_says_upgrade(tmp_path, field, value):
    path = tmp_path / "latest.json"
    data = json.loads(new_report({"bundled": "b"}, [_record("one"), _record("two")]).text())
    data["minor"] = reports.MINOR + 1
    data["checks"][1][field] = value
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    with pytest.raises(reports.ReportError) as raised:
        reports.read_report(path)
    said = str(raised.value)
    assert "newer errorkb" in said and "upgrade errorkb" in said and f"checks.1.{field}" in said, said
    assert "restore" not in said, said  # the file is whole: that errorkb's
    assert raised.value.advised
    _, problems = read_reports(tmp_path, ["cpu"])  # the site's words: the same, with no "restore it" added
    assert len(problems) == 1 and "upgrade errorkb" in problems[0] and "restore" not in problems[0], problems


def test_the_same_value_in_a_file_of_this_minor_is_damage_and_said_so(tmp_path):
    """The control: a file that says it is of a minor this errorkb reads whole holds no value it does not know."""
    path = tmp_path / "latest.json"
    data = json.loads(new_report({"bundled": "b"}, [_record("one")]).text())
    data["checks"][0]["outcome"] = "flaky"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    with pytest.raises(reports.ReportError, match="not a verification report") as raised:
        reports.read_report(path)
    assert "newer" not in str(raised.value)


@pytest.mark.parametrize("with_new_fields", [False, True])
def test_a_newer_minor_matrix_file_with_a_value_this_errorkb_does_not_know_says_upgrade(tmp_path: Path,
                                                                                        with_new_fields):
    """Beside the newer minor's new fields (kept), the message named one of them as a hand's, "in a file that says
    it is of that format or an earlier one": the file says a newer one."""
    path = tmp_path / "transformers.json"
    raw = _newer_matrix(path)
    if not with_new_fields:
        raw.pop("hosts"), raw["releases"][0].pop("wheel_sha256"), raw["results"][0]["before"].pop("peak_bytes")
    raw["results"][0]["before"]["outcome"] = "flaky"
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    with pytest.raises(files.MatrixError) as raised:
        files.load_matrix(path)
    said = str(raised.value)
    assert f"format minor {files.MINOR + 1}" in said and "results.0.before.outcome" in said, said
    assert "upgrade errorkb" in said and "restore" not in said and "earlier one" not in said, said


def test_a_newer_minor_report_with_new_fields_and_a_new_value_names_the_value(tmp_path):
    path = tmp_path / "latest.json"
    data = json.loads(new_report({"bundled": "b"}, [_record("one"), _record("two")]).text())
    data["minor"] = reports.MINOR + 1
    data["provenance"] = {"runner": "ci-7"}
    data["checks"][0]["energy_joules"] = 12.5
    data["checks"][1]["code"] = "raised-on-a-new-device"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    with pytest.raises(reports.ReportError) as raised:
        reports.read_report(path)
    said = str(raised.value)
    assert "checks.1.code, line" in said and "upgrade errorkb" in said and "earlier one" not in said, said
