"""Reports never lose data and diff small: a partial run replaces only its own records."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results import matrix as files
from errorkb.verify import matrix
from tests.kb import ROOT, copy_kb

IDS = ["head-dim-list-length", "num-heads-list-length"]


def test_matrix_for_one_entry_and_release_keeps_every_other_result(tmp_path, monkeypatch, capsys):
    """`errorkb matrix ID --release X` on a project whose matrix file holds many entries and
    releases: afterwards, every other (entry, release) result is exactly as it was."""
    root = copy_kb(tmp_path, IDS)
    (root / "reports" / "matrix").mkdir(parents=True)
    shutil.copy(ROOT / "reports" / "matrix" / "transformers.json", root / "reports" / "matrix" / "transformers.json")
    project = load_project(root)
    before = files.read_matrix(project)
    assert before is not None and len(before.results) > 100 and len(before.releases) > 40
    # The pinned release is installed here: run it in this interpreter instead of building an environment.
    monkeypatch.setattr(matrix, "ensure_env", lambda project, release, rebuild=False:
                        matrix.Env(release, Path(sys.executable)))
    assert main(["--root", str(root), "matrix", "head-dim-list-length", "--release", "5.15.1", "--no-cache"]) == 0
    assert "1 of 1 releases ran" in capsys.readouterr().out
    after = files.read_matrix(project)
    assert after is not None
    old = {(r.entry, r.release): r for r in before.results}
    new = {(r.entry, r.release): r for r in after.results}
    assert set(new) == set(old), "no result was dropped or added"
    changed = [key for key in old if old[key] != new[key]]
    assert changed == [("head-dim-list-length", "5.15.1")]
    assert new[changed[0]].before.outcome == "pass"
    assert {r.release for r in after.releases} == {r.release for r in before.releases}


def test_reverifying_one_entry_changes_only_its_records_in_the_standing_report(tmp_path, lean_checks):
    root = copy_kb(tmp_path, IDS)
    report = root / "reports" / "latest.json"
    assert main(["--root", str(root), "verify", "--target", "bundled", "--device", "cpu", "--no-cache"]) == 0
    first = report.read_text().splitlines()
    assert main(["--root", str(root), "verify", "num-heads-list-length", "--target", "bundled", "--device", "cpu",
                 "--no-cache"]) == 0
    second = report.read_text().splitlines()
    records = [line for line in second if line.startswith('{"id":')]
    assert len(records) == 7 and len(second) == len(first), "one record per line (4 + 3 snippets), none lost"
    changed = [line for line in second if line not in first]
    assert changed, "the re-verified records carry a new time"
    for line in changed:
        assert not line.startswith('{"id":') or json.loads(line.rstrip(","))["entry"] == "num-heads-list-length", line
    untouched = [line for line in first if '"entry":"head-dim-list-length"' in line]
    assert len(untouched) == 4 and all(line in second for line in untouched)
    entries = load_project_entries(load_project(root)).entries
    assert {one.entry.id for one in entries} == set(IDS)


def test_a_run_that_observed_nothing_keeps_the_standing_report_s_environment_and_run():
    """A run whose every check was answered without running (a draft verified on a target it does not
    apply to) adds its records, and replaces neither the machine the other records were measured on
    nor how they were run."""
    from errorkb.results.records import CheckRecord, Code
    from errorkb.results.report import new_report, update_standing

    def check(entry: str, outcome: str, code: Code, environment: dict | None) -> CheckRecord:
        return CheckRecord.model_validate({
            "id": f"{entry}::before[bundled-cpu]", "entry": entry, "role": "before",
            "snippet": f"snippets/{entry}/before.py", "snippet_sha256": "0" * 64, "target": "bundled",
            "device": "cpu", "outcome": outcome, "code": code, "reason": "r", "expected": "as documented",
            "verified_at": "2026-12-04T01:00:00+00:00", "environment": environment})

    measured = {"python": "3.11.7", "runtime": "torch", "runtime_version": "2.13.0+cpu", "library": "transformers"}
    previous = new_report({"bundled": "b1"}, [check("ran", "pass", Code.RAISED_AS_DOCUMENTED, measured)],
                          {"isolation": "fork+bwrap"})
    idle = new_report({"bundled": "b1"}, [check("draft", "not-applicable", Code.NOT_APPLICABLE, None)],
                      {"isolation": "fork (no check ran)"})
    standing = update_standing(previous, idle, {"ran", "draft"})
    assert [record.entry for record in standing.checks] == ["draft", "ran"]
    assert standing.environment == previous.environment and standing.environment["runtime_version"] == "2.13.0+cpu"
    assert standing.run == {"isolation": "fork+bwrap"}
    observed = new_report({"bundled": "b2"}, [check("ran", "pass", Code.RAISED_AS_DOCUMENTED,
                                                    {**measured, "runtime_version": "2.14.0+cpu"})],
                          {"isolation": "subprocess+bwrap"})
    later = update_standing(standing, observed, {"ran", "draft"})
    assert later.environment["runtime_version"] == "2.14.0+cpu" and later.run == {"isolation": "subprocess+bwrap"}


def test_matrix_files_of_another_package_are_never_merged_into_one(tmp_path, capsys):
    """`errorkb report merge OUT a.json b.json` with b the matrix of another package (a shard of another
    knowledge base's CI) wrote one file labelled with the last package, holding both packages' releases:
    transformers' matrix then said it was torch's. Refused, naming both, and OUT is left as it was."""
    from errorkb.results.report import now

    result = files.Result(entry="e", release="5.0.0", digest="d", measured=now())
    ours, theirs = tmp_path / "transformers.json", tmp_path / "torch.json"
    files.write_matrix(ours, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [result])
    files.write_matrix(theirs, "torch", [files.ReleaseStatus(release="2.0.0", ran=True, measured=now())],
                       [result.model_copy(update={"release": "2.0.0"})])
    kept = ours.read_bytes()
    for command in (["--root", str(ROOT), "report", "merge", str(tmp_path / "out.json"), str(ours), str(theirs)],
                    ["--root", str(ROOT), "report", "merge", str(ours), str(theirs)]):
        assert main(command) == 1
        said = capsys.readouterr().err
        assert "Traceback" not in said and "'torch'" in said and "'transformers'" in said, said
    assert ours.read_bytes() == kept and not (tmp_path / "out.json").exists()


def test_a_matrix_file_of_another_package_is_neither_shown_nor_merged_into(tmp_path, capsys):
    """The project's matrix file (reports/matrix/transformers.json) holding another package's matrix: the
    pages quoted its releases as transformers', and `errorkb matrix` merged transformers' results into it."""
    from errorkb.results.report import now

    root = copy_kb(tmp_path, IDS)
    project = load_project(root)
    path = files.matrix_path(project)
    files.write_matrix(path, "torch", [files.ReleaseStatus(release="2.0.0", ran=True, measured=now())], [])
    kept = path.read_bytes()
    assert files.read_matrix(project) is None
    problem = files.matrix_problem(project)
    assert problem is not None and "'torch'" in problem and str(path) in problem, problem
    with pytest.raises(files.store.Refused) as refused:
        files.write_matrix(path, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [])
    assert path.read_bytes() == kept and "'torch'" in str(refused.value)
    assert refused.value.rescued is not None and files.load_matrix(refused.value.rescued).package == "transformers"
    refused.value.rescued.unlink()
    # `errorkb matrix` says so before it runs anything, not at its first write (its results then rescued)
    from errorkb.core.load import load_project_entries
    from errorkb.verify.matrix import run_matrix

    with pytest.raises(files.store.Refused, match="'torch'") as before_running:
        run_matrix(project, load_project_entries(project).entries, [])
    assert "nothing was run" in str(before_running.value) and path.read_bytes() == kept


@pytest.mark.parametrize("written", ["v5.0.0", "5.00.0", "5.0.0-rc1", "latest"])
def test_a_matrix_release_not_written_as_errorkb_writes_it_is_refused(tmp_path, written):
    """Statuses and results are merged by their release's text, pages read releases as versions: a shard's
    `v5.0.0` beside `5.0.0` was a second status and a second result for one release, both kept and counted
    ("2 releases"), one of them never shown; `latest` was kept and never shown."""
    from errorkb.results.report import now

    result = files.Result(entry="e", release="5.0.0", digest="d", measured=now())
    path = tmp_path / "transformers.json"
    files.write_matrix(path, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [result])
    text = path.read_text(encoding="utf-8")
    shard = tmp_path / "shard.json"
    shard.write_text(text.replace('"5.0.0"', json.dumps(written)), encoding="utf-8")
    with pytest.raises(files.MatrixError, match=rf"line \d+: release {re.escape(repr(written))}"):
        files.load_matrix(shard)
    assert main(["--root", str(ROOT), "report", "merge", str(path), str(shard)]) == 1
    assert path.read_text(encoding="utf-8") == text


def test_one_release_written_two_ways_is_one_record_when_merged_and_refused_twice_in_one_file(tmp_path):
    """5.0 and 5.0.0 are one release: merged by their text, they were two statuses and two results of it."""
    from errorkb.results.report import now

    def matrix(release: str) -> files.MatrixFile:
        return files.merged(None, "transformers", [files.ReleaseStatus(release=release, ran=True, measured=now())],
                            [files.Result(entry="e", release=release, digest="d", measured=now())])

    joined = files.merge_files([matrix("5.0.0"), matrix("5.0")])
    assert [status.release for status in joined.releases] == ["5.0"] and [r.release for r in joined.results] == ["5.0"]
    text = matrix("5.0.0").text()
    twice = text.replace('"releases": [\n', '"releases": [\n' + matrix("5.0").releases[0].model_dump_json() + ",\n", 1)
    with pytest.raises(files.MatrixError, match="5.0.0 is listed twice"):
        files.parse_matrix(twice, tmp_path / "transformers.json")


def test_report_merge_never_blocks_on_an_input_swapped_for_a_fifo_after_it_was_looked_at(tmp_path, monkeypatch,
                                                                                         capsys):
    """`errorkb report merge` reads the head of each input to tell a report from a matrix file: a FIFO put in
    place of an input after it was looked at blocked the command forever. Simulated: the look says a file."""
    import os
    import threading

    pipe = tmp_path / "shard.json"
    os.mkfifo(pipe)
    real = Path.is_file
    monkeypatch.setattr(Path, "is_file", lambda self: True if self == pipe else real(self))
    codes: list[int] = []
    merging = threading.Thread(target=lambda: codes.append(main(["--root", str(ROOT), "report", "merge",
                                                                  str(tmp_path / "out.json"), str(pipe)])), daemon=True)
    merging.start()
    merging.join(20)
    if merging.is_alive():  # free the blocked reader before failing
        with open(pipe, "wb"):
            pass
        merging.join(20)
        pytest.fail("report merge blocked on a FIFO")
    assert codes == [1] and "not a regular file" in capsys.readouterr().err


def test_a_matrix_result_at_a_release_the_file_has_no_status_for_is_refused(tmp_path, capsys):
    """Every run writes a release's status with its results. A file holding results at a release it lists no
    status for (a shard claiming results for a release it did not run, a hand-resolved merge conflict) was read
    without a word: the pages list only releases with a status, so what it claimed was silently never shown,
    and merged, it stood in for any later run's status-less result. Refused, located, and nothing merged."""
    from errorkb.results.report import now

    status = files.ReleaseStatus(release="5.0.0", ran=True, measured=now())
    result = files.Result(entry="e", release="5.0.0", digest="d", measured=now())
    path = tmp_path / "transformers.json"
    files.write_matrix(path, "transformers", [status], [result])
    kept = path.read_bytes()
    claims = files.merged(None, "transformers", [status], [result, result.model_copy(update={"release": "5.1.0"})])
    shard = tmp_path / "shard.json"
    shard.write_text(claims.text(), encoding="utf-8")
    with pytest.raises(files.MatrixError, match=r"results\.1, line \d+: e at 5\.1\.0, a release the file has no "
                                                r"status for") as refused:
        files.load_matrix(shard)
    assert "restore" in str(refused.value)
    assert main(["--root", str(ROOT), "report", "merge", str(path), str(shard)]) == 1
    said = capsys.readouterr().err
    assert "5.1.0" in said and "Traceback" not in said and said.count("\n") == 1, said
    assert path.read_bytes() == kept


@pytest.mark.parametrize("second", ["2026-11-30T10:00:00+00:00", "2026-11-30T11:00:00+00:00"])
def test_report_merge_says_which_checks_its_inputs_measured_both_passing_and_failing(tmp_path, capsys, second):
    """Two shards (or two CI jobs) that both ran a check, one failing and one passing: the merge kept one
    record by its date (or, dated alike, by the order of the arguments) and said nothing, so a failure one
    machine measured was gone from OUT without a word. The merge still keeps one record per check (merged
    shards equal one run), and now names each such check, both inputs, both outcomes, and which it kept."""
    from tests.site.sitekb import record, site_project, write_report

    project = site_project(tmp_path)
    check = "head-dim-list-length::after[bundled-cpu]"
    failed = write_report(project, [record(project, "head-dim-list-length", "after", "after.py", outcome="fail",
                                           reason="raised", when="2026-11-30T10:00:00+00:00")], name="gpu-job.json")
    passed = write_report(project, [record(project, "head-dim-list-length", "after", "after.py", when=second),
                                    record(project, "head-dim-list-length", "before", "before.py", when=second)],
                          name="cpu-job.json")
    out = tmp_path / "merged.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(failed), str(passed)]) == 0
    err = capsys.readouterr().err
    assert check in err and "gpu-job.json: fail" in err and "cpu-job.json: pass" in err, err
    alike = "dated alike, the later input's" if second == "2026-11-30T10:00:00+00:00" else "the record written last"
    assert f"kept {passed}'s ({alike})" in err and "::before[" not in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    # inputs that agree are merged without a word
    assert main(["--root", str(project), "report", "merge", str(tmp_path / "again.json"), str(passed), str(passed)]) == 0
    assert capsys.readouterr().err == ""


def test_report_merge_says_which_records_it_did_not_take_for_being_dated_in_the_future(tmp_path, capsys):
    """A CI runner whose clock runs ahead writes records dated past now and the clocks' skew: a merge never lets
    such a record win (a forged date must not keep a record in place of every later run's), so the failure it
    measured lost to an older pass in OUT, and nothing said why. The rule stays; the merge now says it."""
    from datetime import UTC, datetime, timedelta

    from errorkb.results.report import read_report
    from tests.site.sitekb import record, site_project, write_report

    project = site_project(tmp_path)
    ahead = (datetime.now(UTC) + timedelta(hours=2)).isoformat(timespec="seconds")
    committed = write_report(project, [record(project, "head-dim-list-length", "after", "after.py")], name="old.json")
    fast = write_report(project, [record(project, "head-dim-list-length", "after", "after.py", outcome="fail",
                                         reason="raised", when=ahead)], name="fast-clock.json")
    out = tmp_path / "merged.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(committed), str(fast)]) == 0
    err = capsys.readouterr().err
    assert f"{fast}: 1 record dated in the future" in err and "clock" in err, err
    assert f"kept {committed}'s (the others are dated in the future or not dated, and never win)" in err, err
    assert [check.outcome.value for check in read_report(out).checks] == ["pass"]


def test_report_merge_names_ten_disagreements_and_counts_the_rest(tmp_path, capsys):
    from tests.site.sitekb import SAMPLE_IDS, record, site_project, write_report

    project = site_project(tmp_path)
    checks = [(entry, role, target, device) for entry in SAMPLE_IDS for role in ("before", "after")
              for target in ("bundled", "upstream") for device in ("cpu", "cuda")][:12]

    def report(outcome: str, name: str) -> Path:
        return write_report(project, [record(project, entry, role, f"{role}.py", target=target, device=device,
                                             outcome=outcome) for entry, role, target, device in checks], name=name)

    failed, passed = report("fail", "a.json"), report("pass", "b.json")
    assert main(["--root", str(project), "report", "merge", str(tmp_path / "out.json"), str(failed), str(passed)]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 11 and lines[-1].endswith("... and 2 more checks measured both failing and passing"), lines


def test_report_merge_never_lets_an_older_verifier_s_record_win_by_its_date(tmp_path, capsys):
    """Two reports of one check written by different verifiers (an errorkb upgraded on one CI job, not the
    other): `latest_results` chose by date alone, so the older verifier's pass, written later, replaced the
    newer verifier's failure, and OUT said it was the newer verifier's. Verdicts judged by different rules
    are not merged: the merge names each input's verifier, writes nothing, and says what to do."""
    from errorkb.results.report import read_report
    from tests.site.sitekb import record, site_project, write_report

    project = site_project(tmp_path)
    new = write_report(project, [record(project, "head-dim-list-length", "after", "after.py", outcome="fail",
                                        reason="raised", when="2026-11-30T10:00:00+00:00")], name="new.json")
    old = write_report(project, [record(project, "head-dim-list-length", "after", "after.py",
                                        when="2026-11-30T11:00:00+00:00")], name="old.json", verifier="1")
    out = tmp_path / "merged.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(new), str(old)]) == 1
    err = capsys.readouterr().err
    assert f"{new}: verifier 2" in err and f"{old}: verifier 1" in err and "errorkb verify" in err, err
    assert not out.exists() and "Traceback" not in err
    # nor into an OUT another verifier wrote: it stays as it was
    assert main(["--root", str(project), "report", "merge", str(out), str(old)]) == 0
    kept = out.read_bytes()
    assert read_report(out).verifier == "1", "the merge of one verifier's reports says that verifier, not its own"
    assert main(["--root", str(project), "report", "merge", str(out), str(new)]) == 1
    err = capsys.readouterr().err
    assert f"{out}: verifier 1" in err and f"{new}: verifier 2" in err, err
    assert out.read_bytes() == kept


def test_the_site_says_when_its_reports_come_from_different_verifiers(tmp_path):
    """The standing report and the GPU runner's, written by different verifiers: the pages chose each check's
    record by date across both, as if one judge had made them, and said nothing."""
    from errorkb.results.report import read_reports
    from tests.site.sitekb import record, site_project, write_report

    project = site_project(tmp_path)
    write_report(project, [record(project, "head-dim-list-length", "after", "after.py")])
    write_report(project, [record(project, "head-dim-list-length", "after", "after.py", device="cuda")],
                 name="cuda.json", verifier="1")
    reports, problems = read_reports(project / "reports", ("cpu", "cuda"))
    assert len(reports) == 2
    assert any("cuda.json" in said and "verifier 1" in said and "verifier 2" in said for said in problems), problems


def _check(entry: str, role: str = "before", **fields: object):
    from errorkb.results.records import CheckRecord

    return CheckRecord.model_validate({
        "id": f"{entry}::{role}[bundled-cpu]", "entry": entry, "role": role, "snippet": f"snippets/{entry}/{role}.py",
        "target": "bundled", "device": "cpu", "outcome": "pass", "code": "raised-as-documented", "reason": "r",
        "expected": "e", "verified_at": "2026-12-04T01:00:00+00:00", **fields})


def test_a_run_by_a_newer_verifier_does_not_relabel_the_records_it_did_not_run(tmp_path):
    """A report named one verifier and its records none: a run by a newer verifier kept the standing report's
    records of checks it did not run under its own version. Each record now says which verifier judged it."""
    from errorkb.results.report import Report, read_report, update_standing

    previous = Report(verifier="1", created="2026-12-04T01:00:00+00:00", environment={}, targets={},
                      checks=[_check("a"), _check("b")])
    fresh = Report(created="2026-12-05T01:00:00+00:00", environment={}, targets={}, checks=[_check("a")])
    standing = update_standing(previous, fresh, {"a", "b"})
    assert {check.entry: check.verifier for check in standing.checks} == {"a": "2", "b": "1"}
    standing.write(tmp_path / "latest.json")  # and so it stays, written and read again
    assert {check.entry: check.verifier for check in read_report(tmp_path / "latest.json").checks} == {"a": "2",
                                                                                                      "b": "1"}


def test_a_report_whose_records_name_no_verifier_reads_them_as_its_own(tmp_path):
    """Reports written before records named their verifier still load: each record is the report's verifier's."""
    from errorkb.results.report import read_report
    from tests.site.sitekb import record, site_project, write_report

    project = site_project(tmp_path)
    path = write_report(project, [record(project, "head-dim-list-length", "after", "after.py")], verifier="1")
    assert '"verifier"' not in path.read_text().split('"checks"')[1]
    assert [check.verifier for check in read_report(path).checks] == ["1"]


def test_a_fresh_report_says_which_verifier_and_errorkb_release_judged_each_record():
    from errorkb import __version__
    from errorkb.results.report import VERIFIER_VERSION, new_report

    report = new_report({}, [_check("a")])
    (check,) = report.checks
    assert (check.verifier, check.errorkb) == (VERIFIER_VERSION, __version__)
    records = report.text().split('"checks"')[1]  # the report's own verifier, said once in the file
    assert f'"errorkb":"{__version__}"' in records and '"verifier"' not in records


def test_merged_reports_keep_each_record_s_verifier(tmp_path):
    """A standing report holding an older verifier's records, merged with a shard of the same verifier: the merge
    keeps what each record says, never the merged report's version for all."""
    from errorkb.results.report import Report, merge

    standing = Report(created="2026-12-05T01:00:00+00:00", environment={}, targets={},
                      checks=[_check("a"), _check("b", verifier="1")])
    shard = Report(created="2026-12-05T02:00:00+00:00", environment={}, targets={}, checks=[_check("c")])
    merged = merge([standing, shard])
    assert {check.entry: check.verifier for check in merged.checks} == {"a": "2", "b": "1", "c": "2"}


def test_an_older_verifier_s_later_run_never_replaces_a_newer_verifier_s_record(tmp_path):
    """A standing report a later errorkb wrote (verifier 3), then a run of this one over the same check: of two
    records of a check the later-written wins, so this run's verdict replaced one its rules could not reach.
    Refused, the file left as it was, this run's report saved beside it; checks it did not judge later are fine."""
    from errorkb.results import store
    from errorkb.results.report import Report, read_report, update_standing, write_report

    path = tmp_path / "latest.json"
    Report(verifier="3", created="2026-12-04T01:00:00+00:00", environment={}, targets={},
           checks=[_check("a"), _check("b", verifier="2")]).write(path)
    kept = path.read_bytes()
    fresh = Report(created="2026-12-05T01:00:00+00:00", environment={}, targets={},
                   checks=[_check("a", outcome="fail", code="raised", verified_at="2026-12-05T01:00:00+00:00")])
    with pytest.raises(store.Refused) as refused:
        write_report(path, fresh, lambda on_disk, run: update_standing(on_disk, run, {"a", "b"}))
    said = str(refused.value)
    assert "later verifier" in said and "3 (a::before[bundled-cpu])" in said and "upgrade errorkb" in said, said
    assert path.read_bytes() == kept and refused.value.rescued is not None and refused.value.rescued.is_file()
    other = Report(created="2026-12-05T01:00:00+00:00", environment={}, targets={}, checks=[_check("b")])
    written = write_report(path, other, lambda on_disk, run: update_standing(on_disk, run, {"a", "b"}))
    assert {check.entry: check.verifier for check in written.checks} == {"a": "3", "b": "2"}
    assert read_report(path).checks == written.checks


def test_a_matrix_result_says_which_verifier_and_errorkb_release_measured_it(tmp_path):
    """The version matrix merges results per (entry, release) across runs as the report does: each names the
    verifier that judged it, and a result written before results named theirs keeps saying none."""
    from errorkb import __version__
    from errorkb.results.report import VERIFIER_VERSION, now

    path = tmp_path / "transformers.json"
    old = files.Result(entry="a", release="4.0.0", digest="d", measured=now())
    files.write_matrix(path, "transformers", [files.ReleaseStatus(release="4.0.0", ran=True, measured=now())], [old])
    path.write_text(re.sub(r',"verifier":"[^"]*","errorkb":"[^"]*"', "", path.read_text()), encoding="utf-8")
    fresh = files.Result(entry="a", release="5.0.0", digest="d", measured=now())
    written = files.write_matrix(path, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True,
                                                                             measured=now())], [fresh])
    assert {(r.release, r.verifier, r.errorkb) for r in written.results} == {
        ("4.0.0", None, None), ("5.0.0", VERIFIER_VERSION, __version__)}
    assert {(r.release, r.verifier) for r in files.load_matrix(path, "transformers").results} == {
        ("4.0.0", None), ("5.0.0", VERIFIER_VERSION)}


def _matrix_shard(path: Path, before: str | None, verifier: str | None = None, measured: str | None = None) -> Path:
    """A matrix file of one (entry, release) result, its before measured `before`; as a shard writes it."""
    from errorkb.results.report import now

    stamp = measured or now()
    verdicts = None if before is None else files.Verdicts(
        outcome=before, code="raised-as-documented" if before == "pass" else "exited-normally", reason=before)
    data = files.MatrixFile(package="transformers", updated=stamp,
                            releases=[files.ReleaseStatus(release="5.0.0", ran=True, measured=stamp)],
                            results=[files.Result(entry="head-dim-list-length", release="5.0.0", before=verdicts,
                                                  digest="d", measured=stamp, recorded=stamp, verifier=verifier)])
    path.write_text(data.text(), encoding="utf-8")
    return path


def test_matrix_shards_written_before_results_named_their_verifier_are_not_relabelled_by_the_merge(tmp_path, capsys):
    """`errorkb report merge` of matrix files stamped every result that named no verifier (written before results
    did) with the merging errorkb's verifier and release: a merge is not a run, and judged nothing."""
    project = copy_kb(tmp_path / "kb", IDS)
    shard = _matrix_shard(tmp_path / "a.json", "pass")
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(shard)]) == 0
    [result] = files.load_matrix(out).results
    assert (result.verifier, result.errorkb) == (None, None)


def test_matrix_shards_that_measured_one_release_differently_are_said_with_the_one_kept(tmp_path, capsys):
    """Report merges name every check two inputs measured both failing and passing; a matrix merge kept the
    later shard's result for an (entry, release) without a word, losing the other machine's measurement."""
    project = copy_kb(tmp_path / "kb", IDS)
    failed = _matrix_shard(tmp_path / "a.json", "fail", measured="2026-12-01T10:00:00+00:00")
    passed = _matrix_shard(tmp_path / "b.json", "pass", measured="2026-12-02T10:00:00+00:00")
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(failed), str(passed)]) == 0
    err = capsys.readouterr().err
    assert "head-dim-list-length at 5.0.0" in err and str(failed) in err and f"kept {passed}'s" in err, err
    assert [result.before.outcome.value for result in files.load_matrix(out).results] == ["pass"]


def test_an_older_verifier_s_later_matrix_result_never_replaces_a_later_verifier_s(tmp_path):
    """A report's writer refuses a run whose records a later verifier judged; a matrix file took an older errorkb's
    run over a later verifier's result for the same entry and release by its date alone (a hole the later rules
    closed, passed again). Refused alike: the file is left as it was, the run's part saved beside it."""
    from errorkb.results import store

    path = _matrix_shard(tmp_path / "transformers.json", "fail", verifier="999", measured="2026-12-01T10:00:00+00:00")
    before = path.read_text(encoding="utf-8")
    ours = files.Result(entry="head-dim-list-length", release="5.0.0", digest="d", measured=files.now(),
                        before=files.Verdicts(outcome="pass", code="raised-as-documented", reason="ok"))
    with pytest.raises(store.Refused, match="later verifier.*999"):
        files.write_matrix(path, "transformers", [], [ours])
    assert path.read_text(encoding="utf-8") == before
    other = files.Result(entry="num-heads-list-length", release="5.0.0", digest="d", measured=files.now())
    files.write_matrix(path, "transformers", [], [other])  # another entry's result is merged as before
    assert len(files.load_matrix(path).results) == 2


def test_matrix_shards_where_an_older_verifier_s_result_would_win_by_its_date_are_not_merged(tmp_path, capsys):
    project = copy_kb(tmp_path / "kb", IDS)
    newer = _matrix_shard(tmp_path / "a.json", "fail", verifier="999", measured="2026-12-01T10:00:00+00:00")
    older = _matrix_shard(tmp_path / "b.json", "pass", verifier="2", measured="2026-12-02T10:00:00+00:00")
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(newer), str(older)]) == 1
    err = capsys.readouterr().err
    assert "later verifier" in err and "999" in err and str(newer) in err and "Traceback" not in err, err
    assert not out.exists()
