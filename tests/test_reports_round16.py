"""Reports as untrusted input, round sixteen: what a report says about a device, and what reaches a page of it.

"Never say CUDA works unless it ran on a GPU": a record on a device other than the host's claiming a pass carries
what a check on that device records (what the runtime read there, and for a clean run what the pass rests on); one
that carries none of it is a pass nobody observed on the device, left out and said, never a badge saying
"verified" on that device. A record's environment (a device's name, a runtime's version) is text a pull request
chose: it reaches the pages bounded.
"""

from __future__ import annotations

from errorkb.results.report import read_reports
from tests.site.sitekb import record, site_project, write_report

ENTRY = "head-dim-list-length"
DEVICES = ("cpu", "cuda")
# What a real check on a device records: the runtime's counters read in the check's process
# (reports/gpu-runs/2026-12-06-h100/cuda-partial.json), and for a clean run what the judge rested the pass on.
EVIDENCE = {"allocated_bytes": 69632, "calls": 2}


def _on_device(project, role: str, file: str, **fields: object) -> dict:
    one = record(project, ENTRY, role, file, device="cuda")
    one.pop("evidence", None)
    one.pop("device_basis", None)
    return {**one, **fields}


def _kept(project) -> tuple[set[str], list[str]]:
    reports, problems = read_reports(project / "reports", DEVICES)
    return {check.id for report in reports for check in report.checks}, problems


def test_a_device_pass_with_no_device_evidence_is_left_out_and_said(tmp_path):
    project = site_project(tmp_path)
    bare = _on_device(project, "before", "before.py")  # "pass" on cuda, and nothing a device check records
    write_report(project, [bare], name="cuda.json")
    kept, problems = _kept(project)
    assert bare["id"] not in kept, kept
    assert any("cuda.json" in one and "1 record" in one and "cuda" in one and "evidence" in one
               for one in problems), problems


def test_a_clean_run_on_a_device_that_says_nothing_of_what_it_rests_on_is_left_out(tmp_path):
    project = site_project(tmp_path)
    unbased = _on_device(project, "after", "after.py", evidence=EVIDENCE)  # no device_basis: the judge always says
    write_report(project, [unbased], name="cuda.json")
    kept, problems = _kept(project)
    assert unbased["id"] not in kept and any("cuda.json" in one for one in problems), problems


def test_device_passes_with_their_evidence_and_everything_else_are_kept(tmp_path):
    project = site_project(tmp_path)
    before = _on_device(project, "before", "before.py", evidence=EVIDENCE)
    after = _on_device(project, "after", "after.py", evidence=EVIDENCE, device_basis="call")
    failed = _on_device(project, "guard:guard_check_lengths", "guard_check_lengths.py", outcome="fail",
                        code="no-device-work", reason="the runtime saw no work on the cuda device")
    not_run = _on_device(project, "guard:guard_per_layer_from_config", "guard_per_layer_from_config.py",
                         outcome="not-run", code="no-device", reason="no cuda device")
    write_report(project, [before, after, failed, not_run], name="cuda.json")
    write_report(project, [record(project, ENTRY, "after", "after.py")])  # the host's pass needs no device's
    kept, problems = _kept(project)
    assert kept == {before["id"], after["id"], failed["id"], not_run["id"], f"{ENTRY}::after[bundled-cpu]"}
    assert problems == []


def test_the_badge_of_a_device_whose_passes_prove_nothing_is_never_verified(tmp_path):
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.results.report import latest_results
    from errorkb.site.render import badges, build_pages

    project = site_project(tmp_path)
    files = {"before": "before.py", "after": "after.py", "guard:guard_check_lengths": "guard_check_lengths.py",
             "guard:guard_per_layer_from_config": "guard_per_layer_from_config.py"}
    write_report(project, [_on_device(project, role, file) for role, file in files.items()], name="cuda.json")
    loaded = load_project(project)
    reports, _ = read_reports(project / "reports", DEVICES)
    pages = build_pages(loaded, load_project_entries(loaded).entries, latest_results(reports))
    page = next(page for page in pages if page.entry.id == ENTRY)
    cuda = next(one for one in badges(page) if (one.target, one.device) == ("bundled", "cuda"))
    assert cuda.outcome == "not-run", cuda


# -- a matrix file merged with a shard that measured less: nothing measured is lost -------------------------------

def _matrix_result(before: str | None, measured: str, after: str | None = None):
    from errorkb.results import matrix as files

    def verdicts(outcome: str | None):
        if outcome is None:
            return None
        code = {"pass": "raised-as-documented", "fail": "exited-normally", "not-run": "unmet-need",
                "not-applicable": "not-applicable"}[outcome]
        return files.Verdicts(outcome=outcome, code=code, reason=outcome)

    return files.Result(entry=ENTRY, release="5.0.0", before=verdicts(before), after=verdicts(after), digest="d",
                        measured=measured, recorded=measured)


def _matrix_file(path, *results, measured: str = "2026-12-01T10:00:00+00:00"):
    from errorkb.results import matrix as files

    data = files.MatrixFile(package="transformers", updated=measured,
                            releases=[files.ReleaseStatus(release="5.0.0", ran=True, measured=measured)],
                            results=list(results))
    path.write_text(data.text(), encoding="utf-8")
    return path


def test_a_later_matrix_shard_that_ran_nothing_never_replaces_a_measured_result(tmp_path, capsys):
    """Of two results of one (entry, release) the later written won, whatever it held: a shard whose checks did not
    run there (an unmet need, a result with no verdict at all) replaced the pass or failure measured before it, and
    the merged matrix lost a measurement. A report's record that ran is never replaced by one that did not; a
    matrix result that ran anything is never replaced by one that ran nothing, and the merge says which it kept."""
    from errorkb.cli import main
    from errorkb.results import matrix as files
    from tests.kb import copy_kb

    project = copy_kb(tmp_path / "kb", [ENTRY])
    out = _matrix_file(tmp_path / "out.json", _matrix_result("pass", "2026-12-01T10:00:00+00:00", after="fail"))
    for index, later in enumerate((_matrix_result("not-run", "2026-12-02T10:00:00+00:00"),
                                   _matrix_result(None, "2026-12-02T10:00:00+00:00", after="not-run"),
                                   _matrix_result(None, "2026-12-02T10:00:00+00:00"))):
        shard = _matrix_file(tmp_path / f"shard{index}.json", later, measured="2026-12-02T10:00:00+00:00")
        assert main(["--root", str(project), "report", "merge", str(out), str(shard)]) == 0
        [kept] = files.load_matrix(out).results
        assert (kept.before.outcome.value, kept.after.outcome.value) == ("pass", "fail"), (index, kept)


def test_a_later_matrix_result_that_ran_replaces_an_earlier_one_as_before(tmp_path):
    from errorkb.results import matrix as files

    out = _matrix_file(tmp_path / "transformers.json", _matrix_result("not-run", "2026-12-01T10:00:00+00:00"))
    files.write_matrix(out, "transformers", [], [_matrix_result("fail", "2026-12-02T10:00:00+00:00")],
                       judged_here=False)
    files.write_matrix(out, "transformers", [], [_matrix_result("pass", "2026-12-03T10:00:00+00:00")],
                       judged_here=False)
    [kept] = files.load_matrix(out).results
    assert kept.before.outcome.value == "pass"


# -- a record's environment is text a pull request chose: bounded on every page ------------------------------------

def test_a_megabyte_device_name_reaches_no_page_whole_and_the_report_keeps_it(tmp_path):
    """A GPU's name, a runtime's version: a report's environment is shown on the badges, the verification page and
    the JSON API. One of 1 MB was copied whole into each (five times into the entry's JSON): the build's output
    grew with whatever a report held. Each value is shown at most `report.ENVIRONMENT_SHOWN` characters, said where
    it is cut; the file keeps it whole."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.results.report import ENVIRONMENT_SHOWN
    from errorkb.site import files as site

    project = site_project(tmp_path)
    name = "NVIDIA <b>H100</b> " + "X" * 1_000_000
    checks = [_on_device(project, role, file, evidence=EVIDENCE, **({"device_basis": "call"} if role != "before" else {}))
              for role, file in (("before", "before.py"), ("after", "after.py"))]
    for one in checks:
        one["environment"] = {**one["environment"], "device_name": name, "gpu": {"smi": "Y" * 1_000_000}}
    path = write_report(project, checks, name="cuda.json")
    written = path.read_text(encoding="utf-8")
    reports, problems = read_reports(project / "reports", DEVICES)
    shown = {key: value for report in reports for check in report.checks
             for key, value in (check.environment or {}).items()}
    assert all(len(str(value)) <= ENVIRONMENT_SHOWN + 40 for value in shown.values()), {
        key: len(str(value)) for key, value in shown.items()}
    assert shown["device_name"].startswith("NVIDIA <b>H100</b> XXX") and "1,000,019 characters" in shown["device_name"]
    assert any("cuda.json" in one and "device_name" in one and "environment" in one for one in problems), problems
    loaded = load_project(project)
    _, made = site.site_files(loaded, load_project_entries(loaded), reports)
    assert max(len(one.content) for one in made if isinstance(one.content, str)) < 500_000
    assert all("X" * 10_000 not in one.content for one in made if isinstance(one.content, str))
    assert path.read_text(encoding="utf-8") == written


# -- a shard from another knowledge base ----------------------------------------------------------------------------

def test_report_merge_leaves_out_and_names_records_of_entries_the_knowledge_base_has_not(tmp_path, capsys):
    """A CI artefact is whatever a job uploaded: a shard of another knowledge base's run merged its records into OUT
    without a word (the pages then left them out, and the next `errorkb verify` dropped them silently). The merge
    leaves them out, names them and how many, and keeps every record of this knowledge base's entries."""
    from errorkb.cli import main
    from errorkb.results.report import read_report
    from tests.kb import copy_kb

    project = copy_kb(tmp_path / "kb", [ENTRY])
    ours = record(project, ENTRY, "after", "after.py")
    theirs = {**ours, "entry": "another-kb-entry", "id": ours["id"].replace(ENTRY, "another-kb-entry")}
    shard = write_report(project, [ours, theirs], name="shard.json")
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(shard)]) == 0
    err = capsys.readouterr().err
    assert "another-kb-entry" in err and "1 record" in err and str(shard) in err, err
    assert [check.id for check in read_report(out).checks] == [ours["id"]]
