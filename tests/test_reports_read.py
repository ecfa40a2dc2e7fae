"""The site reads only the reports the verifier writes (`REPORT_FILES`) and no record dated in the future."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta

import pytest

from errorkb.core.project import load_project
from errorkb.results.report import CLOCK_SKEW, read_reports, report_files
from tests.kb import ROOT
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
    path = project / "reports" / "latest.json"
    # the record whose time is not a date is said as such (round nineteen), not counted as dated in the future
    assert problems[1:] == [f"{path}: 1 record dated in the future ignored"], problems
    assert problems[0].startswith(f"{path}: 1 record whose time is not a date") and "'not a date'" in problems[0]


def test_a_report_created_in_the_future_is_ignored(tmp_path):
    project = site_project(tmp_path)
    path = write_report(project, [record(project, ENTRY, "after", "after.py")])
    path.write_text(path.read_text().replace("2026-11-30T10:00:00+00:00", "2099-01-01T00:00:00+00:00"))
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"), now=datetime(2026, 12, 1, tzinfo=UTC))
    assert reports == [] and "in the future" in problems[0]


def test_the_committed_reports_read_and_write_back_unchanged():
    """Their format grew only optional fields: the committed files (an older errorkb's included)
    read, and written back, are byte for byte what is committed: nothing lost, no migration."""
    from errorkb.results.matrix import load_matrix
    from errorkb.results.report import read_report
    from tests.kb import ROOT

    report = ROOT / "reports" / "latest.json"
    matrix = ROOT / "reports" / "matrix" / "transformers.json"
    assert read_report(report).text() == report.read_text(encoding="utf-8")
    assert load_matrix(matrix).text() == matrix.read_text(encoding="utf-8")


def test_a_record_that_does_not_say_what_it_was_made_from_is_stale(tmp_path):
    """An older errorkb's record names no inputs: it cannot be shown to speak for the entry now."""
    from errorkb.results.keys import holds
    from errorkb.results.records import CheckRecord

    project = site_project(tmp_path)
    fields = record(project, ENTRY, "after", "after.py")
    assert holds(CheckRecord.model_validate(fields).inputs, fields["inputs"])
    legacy = CheckRecord.model_validate({key: value for key, value in fields.items() if key != "inputs"})
    assert legacy.inputs is None and not holds(legacy.inputs, fields["inputs"])


def test_editing_the_entry_makes_its_badges_stale(tmp_path):
    """Dropping or adding a wording, or any other edit of the entry, changes what the verdict was
    about: its badge says "stale" (it once stayed "verified" for a claim never checked)."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.results.report import latest_results
    from errorkb.site.render import badges, build_pages

    project = site_project(tmp_path)
    roles = {"before": "before.py", "after": "after.py", "guard:guard_check_lengths": "guard_check_lengths.py",
             "guard:guard_per_layer_from_config": "guard_per_layer_from_config.py"}
    write_report(project, [record(project, ENTRY, role, file) for role, file in roles.items()])

    def labels() -> set[str]:
        loaded = load_project(project)
        reports, _ = read_reports(project / "reports", ("cpu", "cuda"))
        pages = build_pages(loaded, load_project_entries(loaded).entries, latest_results(reports))
        page = next(page for page in pages if page.entry.id == ENTRY)
        return {badge.label for badge in badges(page) if (badge.target, badge.device) == ("bundled", "cpu")}

    assert labels() == {"verified"}
    yml = next((project / "docs" / "errors").glob(f"*/{ENTRY}.yml"))
    text = yml.read_text(encoding="utf-8")
    yml.write_text(text.replace("\nsource:", "\nalso_seen_as:\n- message: 'a wording never checked, {n} times over'\n"
                                              "  exception: ValueError\n  releases: '<5'\nsource:", 1), encoding="utf-8")
    assert labels() == {"verified · stale"}
    yml.write_text(text, encoding="utf-8")
    assert labels() == {"verified"}


def test_what_is_said_about_a_report_holds_no_control_sequence_nor_log_command(tmp_path):
    """The site logs why it left a report out (`mkdocs build` in CI, `mkdocs serve`), and a pull
    request can change a report: a key it invented is quoted as shown, never acted on."""
    import re

    project = site_project(tmp_path)
    one = record(project, ENTRY, "after", "after.py")
    one["\x1b]0;pwned\x07\n::error file=x.py::forged ##[error]"] = 1
    write_report(project, [one])
    (project / "reports" / "\x1b[2Jcuda.json").write_text("{}", encoding="utf-8")
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert reports == [] and len(problems) == 2, problems
    for problem in problems:
        assert not re.search("[\x00-\x1f\x7f-\x9f\u2028\u2029]", problem), problem
        assert "##[error]" not in problem and "\\x1b]0;pwned\\x07\\n:" in "".join(problems), problem


# -- what a report file may be: inside its folder, bounded, never blocking (redsite3) ---------------

def test_a_report_that_links_out_of_its_folder_is_ignored_and_said(tmp_path, tmp_path_factory):
    """reports/latest.json as a link to a file elsewhere (another knowledge base's report, whose
    exception texts the pages quote) put that file on the pages: files outside the repository never
    reach a page. A link to a file inside the folder stays a report."""
    outside = tmp_path_factory.mktemp("outside")
    project = site_project(tmp_path)
    made = write_report(project, [record(project, ENTRY, "after", "after.py", reason="OUTSIDE-REPORT-11e4")])
    made.rename(outside / "latest.json")
    made.symlink_to(outside / "latest.json")
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert reports == [] and any("latest.json" in one and "leads out of" in one for one in problems), problems

    made.unlink()
    (outside / "latest.json").rename(project / "reports" / "kept.json")
    made.symlink_to("kept.json")
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert [check.reason for report in reports for check in report.checks] == ["OUTSIDE-REPORT-11e4"]


def test_a_report_past_the_size_limit_is_said_and_never_read_whole(tmp_path, monkeypatch):
    """A report (or matrix) file was read whole into memory, however large: a pull request's 4 GB
    file took the build's memory. Past `store.MAX_BYTES` it is a located refusal."""
    from errorkb.results import store

    project = site_project(tmp_path)
    path = write_report(project, [record(project, ENTRY, "after", "after.py")])
    monkeypatch.setattr(store, "MAX_BYTES", path.stat().st_size - 1)
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert reports == [] and any("latest.json" in one and "bytes" in one for one in problems), problems
    monkeypatch.setattr(store, "MAX_BYTES", path.stat().st_size)
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert problems == [] and len(reports) == 1


def test_a_report_swapped_for_a_fifo_after_its_stat_does_not_hang_the_site(tmp_path, monkeypatch):
    """The reader looked at the file, then read it: a FIFO put there in between blocked the build
    forever (as the loader's did). Simulated: the stat reports a plain file."""
    import threading
    from pathlib import Path

    project = site_project(tmp_path)
    pipe = project / "reports" / "latest.json"
    os.mkfifo(pipe)
    plain = os.stat(project / "pyproject.toml")
    real_stat = Path.stat
    monkeypatch.setattr(Path, "stat", lambda self, *a, **k: plain if self == pipe else real_stat(self, *a, **k))
    real_os_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **k: plain if Path(p) == pipe else real_os_stat(p, *a, **k))
    answer: list = []
    reader = threading.Thread(target=lambda: answer.append(read_reports(project / "reports", ("cpu",))), daemon=True)
    reader.start()
    reader.join(20)
    if reader.is_alive():  # free the blocked reader before failing
        with open(pipe, "wb"):
            pass
        pytest.fail("the report reader blocked on a FIFO")
    reports, problems = answer[0]
    assert reports == [] and any("not a regular file" in one for one in problems), problems


@pytest.mark.parametrize("schema, said", [(3, "written by a newer errorkb (schema 3); upgrade errorkb to read it"),
                                          (1, "move it away, then errorkb verify writes it anew"),
                                          ("2", "move it away, then errorkb verify writes it anew")])
def test_a_report_of_another_schema_says_what_to_do(tmp_path, schema, said):
    """A report a newer errorkb wrote was told to be regenerated with this older one, which would
    throw away what the newer one measured: it says to upgrade instead; an older one, to move it away."""
    import json

    project = site_project(tmp_path)
    path = write_report(project, [record(project, ENTRY, "after", "after.py")])
    data = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**data, "schema": schema}), encoding="utf-8")
    reports, problems = read_reports(project / "reports", ("cpu",))
    assert reports == [] and len(problems) == 1 and said in problems[0], problems


def test_a_matrix_of_a_newer_schema_says_to_upgrade(tmp_path):
    import json

    from errorkb.core.project import load_project
    from errorkb.results.matrix import matrix_path, matrix_problem

    project = load_project(site_project(tmp_path))
    path = matrix_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"schema": 9}), encoding="utf-8")
    assert "written by a newer errorkb (schema 9); upgrade errorkb" in (matrix_problem(project) or "")


def test_a_check_listed_twice_in_one_report_is_said(tmp_path):
    """The verifier writes each check once; a report that lists one twice (a hand edit, a bad merge of two
    branches' reports) holds two verdicts for it. The site shows the record written last, and says so."""
    from errorkb.results.report import latest_results

    project = site_project(tmp_path)
    older = record(project, ENTRY, "after", "after.py", when="2026-11-30T09:00:00+00:00")
    newer = record(project, ENTRY, "after", "after.py", outcome="fail", reason="broke", when="2026-11-30T10:00:00+00:00")
    path = write_report(project, [newer, older, record(project, ENTRY, "before", "before.py")])
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert problems == [f"{path}: check {older['id']} listed 2 times: only the record written last is shown"]
    assert latest_results(reports)[older["id"]].reason == "broke"


def test_records_of_entries_the_knowledge_base_lacks_are_left_out_and_said(tmp_path, capsys):
    """A record of an entry that is not (or no longer) in the knowledge base speaks for nothing on the pages:
    it is left out, and the ids are said, with what to do; a record of an entry that failed to load is kept
    (its file is there: the load's own problem is what the author must fix)."""
    from errorkb.results.report import read_report, without_unknown_entries

    project = site_project(tmp_path)
    kept = record(project, ENTRY, "after", "after.py")
    gone = {**kept, "entry": "removed-entry", "id": kept["id"].replace(ENTRY, "removed-entry")}
    broken = {**kept, "entry": "broken-entry", "id": kept["id"].replace(ENTRY, "broken-entry")}
    path = write_report(project, [kept, gone, broken])
    left, problems = without_unknown_entries([read_report(path)], {ENTRY, "broken-entry"}, project / "reports")
    assert [check.entry for report in left for check in report.checks] == [ENTRY, "broken-entry"]
    assert problems == [f"{project / 'reports'}: 1 record of an entry the knowledge base does not have "
                        "(removed-entry) left out: `errorkb verify` drops such records from the standing report"]
    assert without_unknown_entries([read_report(path)], {ENTRY, "broken-entry", "removed-entry"},
                                   project / "reports")[1] == []
    from errorkb.cli import main

    assert main(["--root", str(project), "render", "--out", str(tmp_path / "out")]) == 0
    assert "(broken-entry, removed-entry) left out" in capsys.readouterr().err  # `render` says it as the site does


@pytest.mark.parametrize("cut", [0, 1, 40], ids=["empty", "one byte", "cut"])
def test_an_empty_or_cut_report_says_what_it_is_and_what_to_do(tmp_path, cut):
    """A write killed half-way never leaves one (writes are atomic), but a hand, a failed checkout or
    a full disk elsewhere can: the site said `Expecting value: line 1 column 1 (char 0)`, not what to do."""
    project = site_project(tmp_path)
    path = write_report(project, [record(project, ENTRY, "after", "after.py")])
    path.write_bytes(path.read_bytes()[:cut])
    reports, problems = read_reports(project / "reports", ("cpu",))
    assert reports == [] and len(problems) == 1, problems
    assert str(path) in problems[0] and "git checkout" in problems[0] and "errorkb verify" in problems[0], problems
    assert (": empty, " in problems[0]) == (cut == 0), problems


def test_a_matrix_folder_that_links_out_of_the_reports_folder_is_neither_read_nor_written(tmp_path, tmp_path_factory):
    """The project refuses a `reports` setting that leads out of the repository, but reports/matrix
    was never looked at: as a link to a folder elsewhere, another knowledge base's (or any) matrix
    file put its releases on the pages, and `errorkb matrix` wrote its results there. Neither now;
    the run's results are saved where the message says, never through the link."""
    from errorkb.results import matrix as files
    from errorkb.results import store
    from errorkb.results.report import now

    outside = tmp_path_factory.mktemp("outside")
    project = site_project(tmp_path)
    loaded = load_project(project)
    status = files.ReleaseStatus(release="5.0.0", ran=True, measured=now())
    files.write_matrix(outside / f"{loaded.library.dist}.json", "transformers", [status], [])
    written = (outside / f"{loaded.library.dist}.json").read_bytes()
    (project / "reports" / "matrix").symlink_to(outside, target_is_directory=True)
    assert files.read_matrix(loaded) is None
    said = files.matrix_problem(loaded)
    assert said is not None and "reports/matrix" in said and "leads out of" in said, said
    with pytest.raises(store.Refused) as refused:
        files.write_matrix(files.matrix_path(loaded), "transformers",
                           [status.model_copy(update={"release": "5.1.0"})], [])
    assert "leads out of" in str(refused.value), refused.value
    assert (outside / f"{loaded.library.dist}.json").read_bytes() == written
    assert sorted(path.name for path in outside.iterdir()) == [f"{loaded.library.dist}.json"]
    assert refused.value.rescued is not None and not refused.value.rescued.resolve().is_relative_to(outside.resolve())
    refused.value.rescued.unlink()


@pytest.mark.parametrize("forged", ["A::before[bundled-cpu] (again)", "{entry}::before[upstream-cpu]",
                                    "another-entry::before[bundled-cpu]"])
def test_a_record_whose_id_is_not_the_check_its_fields_name_is_refused(tmp_path, capsys, forged):
    """Records are merged and chosen by their `id`, pages and badges read their entry, role, target and
    device. A shard whose record said `before` of bundled·cpu under another id was a second verdict for that
    check: never merged with the first, both listed on the page, and the badge took the one whose id sorted
    last: a pass hid the check's failure. A report holding such a record is refused, naming it."""
    from errorkb.cli import main
    from errorkb.site import evidence

    project = site_project(tmp_path)
    failing = record(project, ENTRY, "before", "before.py", outcome="fail", reason="broke")
    passing = {**record(project, ENTRY, "before", "before.py"), "id": forged.format(entry=ENTRY)}
    others = [record(project, ENTRY, role, file) for role, file in
              [("after", "after.py"), ("guard:guard_check_lengths", "guard_check_lengths.py"),
               ("guard:guard_per_layer_from_config", "guard_per_layer_from_config.py")]]
    path = write_report(project, [failing, passing, *others])
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    records = [check for report in reports for check in report.checks if check.entry == ENTRY]
    hashes = {check.role: check.inputs or "" for check in records}
    bundled = [badge for badge in evidence.badges(records, hashes, ("cpu",)) if badge.target == "bundled"]
    assert all(badge.outcome != "pass" for badge in bundled), "a forged record's pass hid the check's failure"
    assert any(str(path) in problem and "id" in problem and passing["id"] in problem for problem in problems), problems
    assert main(["--root", str(project), "verify", ENTRY, "--no-cache"]) == 1
    said = capsys.readouterr().err
    assert "Traceback" not in said and str(path) in said and passing["id"] in said, said


def test_the_verifier_names_its_checks_as_records_are_held_to(tmp_path):
    """`verify.plan.Check.id` makes the ids the verifier writes; `records.check_id` is what a report's
    reader holds each record to: they must agree for every check of a real knowledge base."""
    from errorkb.core.load import load_project_entries
    from errorkb.results.records import check_id
    from errorkb.verify.plan import plan

    project = load_project(site_project(tmp_path))
    checks = plan(load_project_entries(project).entries, project, ["bundled", "upstream"], ["cpu", "cuda"])
    assert checks and all(check.id == check_id(check.entry.id, check.role, check.target, check.device)
                          for check in checks)


@pytest.mark.parametrize("odd", [{"device": "tpu"}, {"role": "guard:guard_renamed_since"}, {"target": "nightly"}],
                         ids=["a device the runtime lacks", "a snippet the entry lacks", "a target nobody has"])
def test_records_of_checks_the_entry_does_not_have_are_left_out_and_said(tmp_path, capsys, odd):
    """The site reads only the records it expects: a record of a guard the entry no longer has (renamed since
    it ran), of a device the runtime has not, or of a target nobody has, showed as a failing row on the entry's
    page and counted on the verification page, though no check of the knowledge base is it."""
    from errorkb.cli import main

    project = site_project(tmp_path)
    kept = record(project, ENTRY, "before", "before.py")
    fields = {"target": "bundled", "device": "cpu", "role": "before", **odd}
    unexpected = {**record(project, ENTRY, "before", "before.py", outcome="fail", reason="UNEXPECTED-ROW"), **odd,
                  "id": f"{ENTRY}::{fields['role']}[{fields['target']}-{fields['device']}]"}
    write_report(project, [kept, unexpected])
    out = tmp_path / "out"
    assert main(["--root", str(project), "render", "--out", str(out)]) == 0
    said = capsys.readouterr().err
    assert unexpected["id"] in said and "left out" in said, said
    shown = "\n".join(path.read_text(encoding="utf-8") for path in out.rglob("*.md"))
    assert "UNEXPECTED-ROW" not in shown


def _matrix_of(size: int):
    from errorkb.results import matrix as files

    releases = [f"{1 + index // 100}.{index % 100}.0" for index in range(size)]
    when = "2026-11-30T00:00:00+00:00"
    raised = files.Verdicts(outcome="pass", code="raised-as-documented", reason="raised", wording=1)
    ran_clean = files.Verdicts(outcome="fail", code="exited-normally", reason="ran")
    return files.MatrixFile(package="transformers", updated=when,
                            releases=[files.ReleaseStatus(release=release, ran=True, measured=when) for release in releases],
                            results=[files.Result(entry=entry, release=release, digest="d", measured=when,
                                                  before=raised if index % 3 else ran_clean)
                                     for entry in ("e", "f") for index, release in enumerate(releases)])


def test_what_the_matrix_says_of_an_entry_takes_time_linear_in_its_releases():
    """Each page asks the matrix for its entry's summary and its state at every release: a status was found by
    scanning every status, once per release, and a release's place in the list by scanning it, once per
    release and span: a matrix file of 20,000 releases (2 MB) took 25 s of CPU per entry page."""
    from errorkb.results import matrix as files
    from tests.scaling import assert_linear

    def run(size: int) -> None:
        data = _matrix_of(size)
        summary = files.summarize("e", data, "d")
        assert summary is not None and len(summary.measured_raises()) == size - (size + 2) // 3
        assert len(files.release_states("e", data) or []) == size

    assert_linear(run, 500)


def test_a_matrix_listing_more_releases_than_errorkb_measures_is_refused(tmp_path):
    """Every entry page draws a cell per release of the matrix: 500,000 statuses (50 MB, within the file limit)
    made every page of the site a picture of 500,000 cells. Refused, saying why."""
    from errorkb.results import matrix as files

    path = tmp_path / "transformers.json"
    data = _matrix_of(files.MAX_RELEASES + 1)
    path.write_text(data.model_copy(update={"results": data.results[:1]}).text(), encoding="utf-8")
    with pytest.raises(files.MatrixError, match=f"{files.MAX_RELEASES + 1:,} releases"):
        files.load_matrix(path)
    path.write_text(_matrix_of(files.MAX_RELEASES).text(), encoding="utf-8")
    assert files.load_matrix(path) is not None


def test_a_copy_of_a_matrix_answers_from_its_own_releases_and_results():
    """The matrix indexes its releases and results once; pydantic's copy carried the indexes over as they
    were, so a copy with other results answered from the original's."""
    data = _matrix_of(3)
    assert data.results_of("e") and data.status("1.0.0") is not None
    copy = data.model_copy(update={"results": [], "releases": data.releases[1:]})
    assert copy.results_of("e") == {} and copy.status("1.0.0") is None and copy.ordered_releases() == ["1.1.0", "1.2.0"]


def test_the_size_limit_of_a_report_is_sized_from_the_real_files_and_bounds_memory():
    """`store.MAX_BYTES` was 128 MiB: a file that large parses into about a gigabyte (benchmarks/report_memory.py
    measures 5.9 bytes of memory per byte of a report, 8.3 of a matrix file), so a hand-edited or hostile file
    within the limit took the build's memory. The limit is now sized from this repository's files, with room
    for them to grow four times over, and keeps the worst file's cost near a quarter of a gigabyte."""
    from errorkb.results import store

    largest = max(path.stat().st_size for path in (ROOT / "reports").rglob("*.json"))
    assert largest * 4 <= store.MAX_BYTES, "the real files outgrew the limit: raise it, measured with the benchmark"
    assert store.MAX_BYTES <= 32 * 2**20


def test_a_report_is_never_written_past_the_size_limit_it_is_read_with(tmp_path, monkeypatch):
    """A merge (or a run) whose result is larger than `store.MAX_BYTES` was written, and every later read refused
    it as 'more than errorkb writes': the standing report was lost to the next run. The writer now refuses
    first: the file on disk stays as it was, the run's data is saved beside it and the message says why."""
    from errorkb.results import store

    path = tmp_path / "reports" / "latest.json"
    path.parent.mkdir()
    path.write_text('{"old": 1}\n')
    monkeypatch.setattr(store, "MAX_BYTES", 1000)
    with pytest.raises(store.Refused) as refused:
        store.update(path, lambda p: json.loads(p.read_text()), lambda current: {"new": "x" * 2000},
                     lambda data: json.dumps(data), "restore it")
    assert path.read_text() == '{"old": 1}\n'
    assert "1,000 bytes" in str(refused.value) and str(path) in str(refused.value), refused.value
    assert refused.value.rescued is not None and "x" * 2000 in refused.value.rescued.read_text()


def _report_text(project) -> tuple:
    path = write_report(project, [record(project, ENTRY, "after", "after.py")])
    return path, json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=1)


@pytest.mark.parametrize("where", ["top", "record"])
def test_a_number_of_thousands_of_digits_is_located_and_says_what_to_do(tmp_path, where):
    """A hand-edited report holding an integer of 5,000 digits was refused with Python's own advice,
    "use sys.set_int_max_str_digits() to increase the limit": no line, and nothing a reader of a report can do."""
    project = site_project(tmp_path)
    path, text = _report_text(project)
    huge = "1" + "0" * 5000
    text = (text.replace('"schema": 2', f'"schema": 2,\n "extra": {huge}') if where == "top"
            else text.replace('"cached": false', f'"duration_s": {huge}, "cached": false'))
    line = next(number for number, one in enumerate(text.splitlines(), 1) if huge in one)
    path.write_text(text, encoding="utf-8")
    reports, problems = read_reports(project / "reports", ("cpu",))
    assert reports == [] and len(problems) == 1, problems
    assert f"(line {line})" in problems[0] and "5,001 digits" in problems[0], problems
    assert "set_int_max_str_digits" not in problems[0] and len(problems[0]) < 600, problems


def test_a_report_saved_with_a_byte_order_mark_is_read(tmp_path):
    """An editor's "UTF-8 with BOM" made the report 'not a verification report (Unexpected UTF-8 BOM (decode
    using utf-8-sig))': the mark is no part of the text, and is dropped when the file is written next."""
    project = site_project(tmp_path)
    path, text = _report_text(project)
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())
    reports, problems = read_reports(project / "reports", ("cpu",))
    assert problems == [] and len(reports) == 1 and len(reports[0].checks) == 1


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-32"])
def test_a_report_saved_as_utf16_or_utf32_is_named_as_such(tmp_path, encoding):
    """Was "'utf-8' codec can't decode byte 0xff in position 0: invalid start byte": what the file is, and what
    to do, in the loader's words for an entry file saved so."""
    project = site_project(tmp_path)
    path, text = _report_text(project)
    path.write_bytes(text.encode(encoding))
    reports, problems = read_reports(project / "reports", ("cpu",))
    name = "UTF-32" if "32" in encoding else "UTF-16"
    assert reports == [] and len(problems) == 1 and f"the file is {name}" in problems[0], problems
    assert "save it as UTF-8" in problems[0] and "codec" not in problems[0], problems


def test_a_byte_that_is_not_utf8_is_located_at_its_line(tmp_path):
    project = site_project(tmp_path)
    path, text = _report_text(project)
    data = text.encode().replace(b'"reason": "ok"', b'"reason": "o\xffk"')
    path.write_bytes(data)
    line = data[:data.index(b"\xff")].count(b"\n") + 1
    reports, problems = read_reports(project / "reports", ("cpu",))
    assert reports == [] and len(problems) == 1 and f"byte 0xff (line {line}) is not UTF-8" in problems[0], problems


def test_a_report_whose_creation_is_no_date_is_said_to_be_none(tmp_path):
    """`created: "yesterday"` was ignored as "created yesterday, in the future"."""
    project = site_project(tmp_path)
    path, text = _report_text(project)
    path.write_text(text.replace('"created": "2026-11-30T10:00:00+00:00"', '"created": "yesterday"'), encoding="utf-8")
    reports, problems = read_reports(project / "reports", ("cpu",))
    assert reports == [] and problems == [f"{path}: ignored: created 'yesterday', which is not a date"], problems


def test_a_verifier_version_is_a_short_name_not_a_page_of_text(tmp_path):
    """The merge and the site quote each report's verifier version; a hand-edited report's 100,000-character
    one was quoted whole."""
    project = site_project(tmp_path)
    path = write_report(project, [record(project, ENTRY, "after", "after.py")], verifier="x" * 100_000)
    reports, problems = read_reports(project / "reports", ("cpu",))
    assert reports == [] and len(problems) == 1 and problems[0].startswith(f"{path}: "), problems
    assert "verifier" in problems[0] and len(problems[0]) < 600, problems


# -- which verifier judged each record, where records of different verifiers sit side by side (redsite9) -----


def _site(project):
    from errorkb.core.load import load_project_entries
    from errorkb.site.files import site_files

    loaded = load_project(project)
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    _, published = site_files(loaded, load_project_entries(loaded), reports)
    return {one.path: one.content for one in published}, problems


def test_the_page_and_the_json_api_say_which_verifier_judged_records_shown_side_by_side(tmp_path):
    """One standing report whose before an older verifier judged and whose after the newer one did (a partial
    run after an upgrade): the badges beside each other came from different rules and said nothing of it."""
    project = site_project(tmp_path)
    before = record(project, ENTRY, "before", "before.py") | {"verifier": "1<b>x</b>"}
    after = record(project, ENTRY, "after", "after.py", device="cuda") | {"verifier": "2"}
    write_report(project, [before, after])
    published, problems = _site(project)
    page = next(text for name, text in published.items() if name.endswith(f"{ENTRY}.md"))
    api = json.loads(next(text for name, text in published.items() if name.endswith(f"{ENTRY}.json")))
    assert {row["role"]: row["verifier"] for row in api["verification"]} == {"before": "1<b>x</b>", "after": "2"}
    shown = {(badge["target"], badge["device"]): badge["verifiers"] for badge in api["badges"]}
    assert shown[("bundled", "cpu")] == ["1<b>x</b>"] and shown[("bundled", "cuda")] == ["2"], shown
    assert "verifier 1&lt;b&gt;x&lt;/b&gt;" in page and "verifier 2" in page and "<b>x" not in page
    assert any("latest.json" in said and "verifier 1" in said and "verifier 2" in said for said in problems), problems


def test_records_of_one_verifier_name_none_on_the_page(tmp_path):
    """Where every record shown is one verifier's, the badges say nothing of it (the JSON API still does)."""
    project = site_project(tmp_path)
    write_report(project, [record(project, ENTRY, "before", "before.py"), record(project, ENTRY, "after", "after.py")])
    published, problems = _site(project)
    page = next(text for name, text in published.items() if name.endswith(f"{ENTRY}.md"))
    api = json.loads(next(text for name, text in published.items() if name.endswith(f"{ENTRY}.json")))
    assert "verifier 2" not in page and problems == []
    assert {row["verifier"] for row in api["verification"]} == {"2"}


def test_a_reports_folder_of_ten_thousand_other_files_is_said_in_one_line(tmp_path):
    """10,000 files nobody expects in reports/ (a tool's dump, a matrix folder copied up): each was one warning
    line, 10,000 of them in every build's log and every rebuild's under `mkdocs serve`."""
    project = site_project(tmp_path)
    write_report(project, [record(project, ENTRY, "after", "after.py")])
    for number in range(10_000):
        (project / "reports" / f"dump-{number:05}.json").write_text("{}", encoding="utf-8")
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert [check.device for report in reports for check in report.checks] == ["cpu"]
    (said,) = problems
    assert "dump-00000.json" in said and "dump-00009.json" in said and "and 9,990 more" in said, said
    assert "dump-00010.json" not in said and "the site reads only latest.json, cuda.json" in said, said


@pytest.mark.parametrize(("field", "value"), [("duration_s", -3.5), ("wording", -1), ("outcome", "passed")])
def test_a_hand_edited_record_is_refused_at_its_line_with_what_to_do(tmp_path, field, value):
    """A measured number no run writes (a negative duration, a wording before the first) or a word no run
    writes: refused, as any record that does not parse, at the record's line, not only its index."""
    project = site_project(tmp_path)
    fine = record(project, ENTRY, "before", "before.py")
    edited = record(project, ENTRY, "after", "after.py") | {field: value}
    path = write_report(project, [fine, edited])
    path.write_text(json.dumps(json.loads(path.read_text()), indent=1), encoding="utf-8")  # pretty-printed by hand
    line = next(number for number, text in enumerate(path.read_text().splitlines(), 1)
                if '"id": "head-dim-list-length::after' in text)
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    (said,) = problems
    assert reports == [] and f"{path}: not a verification report" in said and f"line {line}" in said, said
    assert f"checks.1.{field}" in said and "git checkout" in said, said


# -- round eleven: valid JSON that is no report, and a field this errorkb does not know ---------------------

@pytest.mark.parametrize("text, kind", [("[1, 2]", "a list"), ('"latest"', "a string"), ("12", "a number"),
                                        ("null", "null"), ("true", "a boolean")])
def test_a_report_or_matrix_that_is_json_but_no_object_says_what_it_holds(tmp_path, text, kind):
    """`[1, 2]` read as "report schema None, expected 2; regenerate it with errorkb verify": no schema was
    written, and regenerating throws away what a restore would bring back. It says what the file holds."""
    from errorkb.results.matrix import matrix_path, matrix_problem

    project = site_project(tmp_path)
    path = project / "reports" / "latest.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    _, problems = read_reports(project / "reports", ("cpu",))
    (said,) = problems
    assert f"{path}: not a verification report" in said and f"holds {kind}" in said and "git checkout" in said, said
    assert "schema None" not in said, said
    matrix = matrix_path(load_project(project))
    matrix.parent.mkdir(parents=True, exist_ok=True)
    matrix.write_text(text, encoding="utf-8")
    said = matrix_problem(load_project(project)) or ""
    assert "not a version-matrix file" in said and f"holds {kind}" in said and "schema None" not in said, said


@pytest.mark.parametrize("where", ["report", "record"])
def test_a_field_this_errorkb_does_not_know_says_a_newer_errorkb_may_have_written_it(tmp_path, where):
    """A report of this schema holding a field this errorkb has not ("Extra inputs are not permitted"): written by
    a newer errorkb that added it, or by a hand. Refused, never rewritten without it, and said so."""
    project = site_project(tmp_path)
    path = write_report(project, [record(project, ENTRY, "after", "after.py")])
    data = json.loads(path.read_text(encoding="utf-8"))
    (data if where == "report" else data["checks"][0])["measured_by_a_later_release"] = 1
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    _, problems = read_reports(project / "reports", ("cpu",))
    (said,) = problems
    assert "measured_by_a_later_release" in said and "newer errorkb" in said and "upgrade errorkb" in said, said
