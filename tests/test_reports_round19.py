"""Reports, round nineteen: a file a newer errorkb wrote, read and rewritten by this one.

A report or matrix file says its format: `schema` (the major: a newer one is refused, naming the file and saying to
upgrade errorkb) and `minor`. A newer minor only adds fields: this errorkb keeps the ones it does not know, each with
its header or its record, and writes them back on every rewrite (a merge, a run's update), so a newer errorkb's
measurements are never dropped by an older one's run. A field this errorkb does not know in a file of a minor it reads
whole is a hand's: refused, naming the file, the field and what to do. Before, an older errorkb refused every file
a newer one wrote (the `shard` field of round eighteen was "unknown").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.results import matrix as files
from errorkb.results import report as reports
from errorkb.results.records import CheckRecord, Code, Outcome
from errorkb.results.report import new_report, now, update_standing, write_report
from tests.kb import copy_kb

IDS = ["head-dim-list-length", "num-heads-list-length"]
STAMP = "2026-12-01T10:00:00+00:00"


def _record(entry: str, role: str = "after", stamp: str = STAMP) -> CheckRecord:
    return CheckRecord(id=f"{entry}::{role}[bundled-cpu]", entry=entry, role=role, snippet=f"snippets/{entry}/{role}.py",
                       target="bundled", device="cpu", outcome=Outcome.PASS, code=Code.RAN_CLEAN, reason="ok",
                       expected="as documented", verified_at=stamp, recorded_at=stamp, inputs="i")


def _newer_report(path: Path, minor: int = reports.MINOR + 1) -> dict:
    """A report as a newer minor format writes it: fields this errorkb does not know in the header, in a record and
    inside a record's own object."""
    report = new_report({"bundled": "b"}, [_record(IDS[0]), _record(IDS[1])])
    data = json.loads(report.text())
    data["minor"] = minor
    data["provenance"] = {"runner": "ci-7", "attempt": 2}
    data["checks"][0]["energy_joules"] = 12.5
    data["checks"][1]["environment"] = {"python": "3.11"}
    data["checks"][1]["future_claim"] = {"kind": "new", "weight": [1, 2]}
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return data


def test_a_newer_minor_report_s_unknown_fields_survive_a_run_s_update(tmp_path):
    path = tmp_path / "latest.json"
    _newer_report(path)
    fresh = new_report({"bundled": "b"}, [_record(IDS[0], role="before", stamp=now())])  # another check
    write_report(path, fresh, lambda on_disk, run: update_standing(on_disk, run, set(IDS)))
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["minor"] == reports.MINOR + 1  # the file still says the format its fields are of
    assert written["provenance"] == {"runner": "ci-7", "attempt": 2}
    by_id = {check["id"]: check for check in written["checks"]}
    assert by_id[f"{IDS[0]}::after[bundled-cpu]"]["energy_joules"] == 12.5
    assert by_id[f"{IDS[1]}::after[bundled-cpu]"]["future_claim"] == {"kind": "new", "weight": [1, 2]}
    assert f"{IDS[0]}::before[bundled-cpu]" in by_id
    # read again, by this errorkb: the same, field for field (a second rewrite loses nothing either)
    again = reports.read_report(path)
    write_report(path, again, lambda on_disk, run: update_standing(on_disk, run, set(IDS)))
    assert json.loads(path.read_text(encoding="utf-8")) == {**written, "created": written["created"]}


def test_a_record_this_run_measured_again_is_the_run_s_own_and_carries_no_field_it_never_wrote(tmp_path):
    path = tmp_path / "latest.json"
    _newer_report(path)
    fresh = new_report({"bundled": "b"}, [_record(IDS[0], stamp=now())])  # re-measures the record with energy_joules
    write_report(path, fresh, lambda on_disk, run: update_standing(on_disk, run, set(IDS)))
    by_id = {check["id"]: check for check in json.loads(path.read_text(encoding="utf-8"))["checks"]}
    assert "energy_joules" not in by_id[f"{IDS[0]}::after[bundled-cpu]"]
    assert "future_claim" in by_id[f"{IDS[1]}::after[bundled-cpu]"]


def test_report_merge_keeps_a_newer_minor_s_fields(tmp_path, capsys):
    project = copy_kb(tmp_path / "kb", IDS)
    newer = tmp_path / "newer.json"
    _newer_report(newer)
    other = tmp_path / "other.json"
    other.write_text(new_report({"bundled": "b"}, [_record(IDS[0], role="before")]).text(), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(newer), str(other)]) == 0, \
        capsys.readouterr().err
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["minor"] == reports.MINOR + 1 and written["provenance"]["runner"] == "ci-7"
    assert [check.get("energy_joules") for check in written["checks"] if check["id"].endswith("after[bundled-cpu]")
            and check["entry"] == IDS[0]] == [12.5]


@pytest.mark.parametrize("minor", [None, reports.MINOR])
def test_an_unknown_field_in_a_report_of_a_minor_this_errorkb_reads_whole_is_a_hand_s_and_refused(tmp_path, minor):
    path = tmp_path / "latest.json"
    data = _newer_report(path)
    if minor is None:
        del data["minor"]
    else:
        data["minor"] = minor
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    with pytest.raises(reports.ReportError) as raised:
        reports.read_report(path)
    said = str(raised.value)
    assert str(path) in said and ("provenance" in said or "energy_joules" in said) and "remove" in said, said


@pytest.mark.parametrize("minor", [-1, "2", 1.5, True, 10**400])
def test_a_minor_that_is_no_minor_is_a_clear_problem(tmp_path, minor):
    path = tmp_path / "latest.json"
    data = _newer_report(path)
    text = json.dumps(data, indent=1).replace(f'"minor": {reports.MINOR + 1}', f'"minor": {json.dumps(minor)}')
    path.write_text(text, encoding="utf-8")
    with pytest.raises(reports.ReportError, match=r"minor.*whole number"):
        reports.read_report(path)


def test_a_newer_major_report_is_refused_naming_the_file_and_saying_to_upgrade(tmp_path):
    path = tmp_path / "latest.json"
    data = _newer_report(path)
    data["schema"] = reports.SCHEMA + 1
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(reports.ReportError, match=r"latest\.json.*newer errorkb.*upgrade errorkb"):
        reports.read_report(path)


# -- the version matrix ---------------------------------------------------------------------------------------------


def _newer_matrix(path: Path, minor: int = files.MINOR + 1) -> dict:
    verdicts = files.Verdicts(outcome="pass", code="raised-as-documented", reason="ok")
    data = files.MatrixFile(package="transformers", updated=STAMP,
                            releases=[files.ReleaseStatus(release="5.0.0", ran=True, measured=STAMP)],
                            results=[files.Result(entry=IDS[0], release="5.0.0", before=verdicts, digest="d",
                                                  measured=STAMP, recorded=STAMP)])
    raw = json.loads(data.text())
    raw["minor"] = minor
    raw["hosts"] = ["runner-a"]
    raw["releases"][0]["wheel_sha256"] = "ab" * 32
    raw["results"][0]["before"]["peak_bytes"] = 4096
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    return raw


def test_a_newer_minor_matrix_file_keeps_its_fields_through_a_run_s_write(tmp_path):
    path = tmp_path / "transformers.json"
    _newer_matrix(path)
    status = files.ReleaseStatus(release="5.1.0", ran=True, measured=files.now())
    files.write_matrix(path, "transformers", [status], [])
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["minor"] == files.MINOR + 1 and written["hosts"] == ["runner-a"]
    assert {status["release"]: status.get("wheel_sha256") for status in written["releases"]} == \
        {"5.0.0": "ab" * 32, "5.1.0": None}
    assert written["results"][0]["before"]["peak_bytes"] == 4096


def test_report_merge_of_matrix_files_keeps_a_newer_minor_s_fields(tmp_path, capsys):
    project = copy_kb(tmp_path / "kb", IDS)
    newer = tmp_path / "a.json"
    _newer_matrix(newer)
    other = tmp_path / "b.json"
    files.write_matrix(other, "transformers", [files.ReleaseStatus(release="5.1.0", ran=True, measured=STAMP)], [])
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(newer), str(other)]) == 0, \
        capsys.readouterr().err
    written = json.loads(out.read_text(encoding="utf-8"))
    assert written["hosts"] == ["runner-a"] and written["results"][0]["before"]["peak_bytes"] == 4096
    assert written["releases"][0]["wheel_sha256"] == "ab" * 32


def test_an_unknown_field_in_a_matrix_file_of_this_minor_is_refused_naming_it(tmp_path):
    path = tmp_path / "transformers.json"
    raw = _newer_matrix(path, minor=files.MINOR)
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    with pytest.raises(files.MatrixError, match=r"transformers\.json.*(hosts|wheel_sha256|peak_bytes).*remove"):
        files.load_matrix(path)


def test_a_header_object_s_newer_field_stays_with_it_and_never_outlives_it(tmp_path):
    """A field of the newer minor inside the file's `shard` is the shard's: kept while a rewrite says that shard,
    gone with it when the file is no shard's now (left behind, it would be a shard no reader can read)."""
    path = tmp_path / "transformers.json"
    raw = _newer_matrix(path)
    raw["shard"] = {"ran": [1], "of": 2, "seed": 7}
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    assert files.load_matrix(path).shard == files.Shard(ran=[1], of=2)
    path.write_text(files.load_matrix(path).text(), encoding="utf-8")  # read and written back as it was
    assert json.loads(path.read_text(encoding="utf-8"))["shard"] == {"ran": [1], "of": 2, "seed": 7}
    files.write_matrix(path, "transformers", [files.ReleaseStatus(release="5.1.0", ran=True, measured=files.now())],
                       [])
    written = json.loads(path.read_text(encoding="utf-8"))
    assert "shard" not in written and written["hosts"] == ["runner-a"]
    assert files.load_matrix(path) is not None


# -- dates that are not dates ------------------------------------------------------------------------------------


def test_a_report_s_records_whose_dates_are_not_dates_are_said_so_with_their_line_not_called_future(tmp_path):
    """They were counted among the records "dated in the future", which sent the author looking at a clock."""
    folder = tmp_path / "reports"
    folder.mkdir()
    report = new_report({"bundled": "b"}, [_record(IDS[0]), _record(IDS[1]), _record(IDS[0], role="before")])
    data = json.loads(report.text())
    data["checks"][0]["verified_at"] = "banana"
    data["checks"][1]["recorded_at"] = "2026-13-45T99:00:00"
    path = folder / "latest.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    kept, problems = reports.read_reports(folder, ["cpu"])
    said = " ".join(problems)
    assert "not a date" in said and "banana" in said and "future" not in said, problems
    line = text[:text.index('"banana"')].count("\n") + 1
    assert f"line {line}" in said and str(path) in said and "restore" in said, problems
    assert [check.id for check in kept[0].checks] == [data["checks"][2]["id"]]  # left out of the pages
    assert json.loads(path.read_text(encoding="utf-8")) == data  # and never out of the file


@pytest.mark.parametrize(("where", "value"), [("updated", "banana"), ("releases.0.measured", "not a date"),
                                             ("results.0.measured", "yesterday"),
                                             ("results.0.recorded", "2026-02-30T00:00:00")])
def test_a_matrix_file_whose_dates_are_not_dates_is_refused_naming_the_field_and_line(tmp_path, where, value):
    path = tmp_path / "transformers.json"
    raw = _newer_matrix(path, minor=files.MINOR)
    del raw["hosts"], raw["releases"][0]["wheel_sha256"], raw["results"][0]["before"]["peak_bytes"]
    holder = raw
    *parents, last = where.split(".")
    for part in parents:
        holder = holder[int(part) if part.isdigit() else part]
    holder[last] = value
    path.write_text(json.dumps(raw, indent=1), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    line = text[:text.index(json.dumps(value))].count("\n") + 1
    with pytest.raises(files.MatrixError) as raised:
        files.load_matrix(path)
    said = str(raised.value)
    assert value in said and "not a date" in said and f"line {line}" in said and str(path) in said, said
