"""Reports that never lose a result (issue 23): runs at once keep each other's results, a file
that does not parse is refused (never replaced), the file's mode is kept, no temp file stays."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results import matrix as files
from errorkb.results import store
from errorkb.results.records import CheckRecord, Code, ExceptionInfo, Outcome, Site
from errorkb.results.report import new_report, now, read_report
from errorkb.verify import engine
from errorkb.verify import matrix as runner
from tests.kb import copy_kb
from tests.site.sitekb import mkdocs_build, site_project

IDS = ["head-dim-list-length", "num-heads-list-length"]


def fake_record(entry: str, role: str = "after", outcome: Outcome = Outcome.PASS) -> CheckRecord:
    code = Code.RAN_CLEAN if outcome is Outcome.PASS else Code.RAISED
    return CheckRecord(id=f"{entry}::{role}[bundled-cpu]", entry=entry, role=role, snippet=f"snippets/{entry}/{role}.py",
                       target="bundled", device="cpu", outcome=outcome, code=code, reason="ok", expected="as documented",
                       verified_at=now(), recorded_at=now(), inputs="i")


@pytest.fixture
def project_root(tmp_path) -> Path:
    return copy_kb(tmp_path / "kb", IDS)


def fake_verify(monkeypatch, barrier: threading.Barrier | None = None, during=lambda: None) -> None:
    """`errorkb verify` without running snippets: each run's report holds one record per entry asked
    for; `barrier`: every run has read the standing report before any goes on to write it."""
    def verify(project, loaded, *, ids=None, **kwargs):
        if barrier is not None:
            barrier.wait(timeout=60)
        during()
        return new_report({"bundled": "b"}, [fake_record(entry) for entry in ids or IDS])

    monkeypatch.setattr(engine, "verify", verify)


def test_two_verify_runs_at_once_keep_both_runs_results(project_root, monkeypatch):
    """Both runs read the standing report before either writes (a barrier makes it certain): the
    one that writes second merges with what the first wrote. (Before: the second replaced it.)"""
    fake_verify(monkeypatch, threading.Barrier(2))
    codes: list[int] = []
    runs = [threading.Thread(target=lambda one=one: codes.append(
        main(["--root", str(project_root), "verify", one, "--no-cache"]))) for one in IDS]
    for run in runs:
        run.start()
    for run in runs:
        run.join(timeout=120)
    assert codes == [0, 0]
    report = read_report(project_root / "reports" / "latest.json")
    assert sorted(record.entry for record in report.checks) == sorted(IDS)


def test_two_verify_processes_at_once_keep_both_results(project_root, lean_python):
    """The same with two real `errorkb verify` processes, each running its own entry's checks (in the lean
    interpreter, tests/lean.py: these snippets need no hqq, which each process's zygote would import)."""
    command = ["--root", str(project_root), "verify", "--target", "bundled", "--device", "cpu", "--no-cache",
               "--snippet", "before"]
    runs = [subprocess.Popen([str(lean_python), "-m", "errorkb.cli", *command, one], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for one in IDS]
    outputs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outputs
    report = read_report(project_root / "reports" / "latest.json")
    assert sorted(record.id for record in report.checks) == sorted(f"{one}::before[bundled-cpu]" for one in IDS)
    assert {record.outcome for record in report.checks} == {Outcome.PASS}


def release_records(entry: str, line: int) -> list[CheckRecord]:
    raised = ExceptionInfo(type="ValueError", raise_site=Site(file="cache_utils.py", function="f", line=line))
    return [fake_record(entry, "before").model_copy(update={"code": Code.RAISED_AS_DOCUMENTED, "exception": raised,
                                                            "target": "upstream"}),
            fake_record(entry, "after").model_copy(update={"target": "upstream"})]


def test_two_matrix_runs_at_once_keep_both_runs_releases(project_root, monkeypatch):
    project = load_project(project_root)
    loaded = load_project_entries(project).entries
    barrier = threading.Barrier(2)
    monkeypatch.setattr(runner, "ensure_env", lambda project, release, rebuild=False:
                        runner.Env(release, Path(sys.executable)))

    def run_release(verifier, checks, jobs=2):
        barrier.wait(timeout=60)  # both runs have read the matrix file
        return [record for entry in sorted({c.entry.id for c in checks}) for record in release_records(entry, 7)]

    monkeypatch.setattr(runner, "run_release", run_release)
    runs = [threading.Thread(target=runner.run_matrix, args=(project, loaded, [release]), kwargs={"cache": False})
            for release in ("5.0.0", "5.1.0")]
    for run in runs:
        run.start()
    for run in runs:
        run.join(timeout=120)
    data = files.read_matrix(project)
    assert data is not None and [status.release for status in data.releases] == ["5.0.0", "5.1.0"]
    assert sorted((r.entry, r.release) for r in data.results) == sorted(
        (entry, release) for entry in IDS for release in ("5.0.0", "5.1.0"))


def write_standing(project_root: Path) -> Path:
    path = project_root / "reports" / "latest.json"
    new_report({"bundled": "b"}, [fake_record(entry) for entry in IDS]).write(path)
    return path


def test_a_report_cut_by_two_bytes_is_refused_not_replaced(project_root, monkeypatch, capsys):
    path = write_standing(project_root)
    path.write_bytes(path.read_bytes()[:-2])
    cut = path.read_bytes()
    monkeypatch.setattr(engine, "verify", lambda *a, **k: pytest.fail("ran although the report cannot be kept"))
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1 and "not a verification report" in said and "git checkout" in said, said
    assert path.read_bytes() == cut


def test_a_report_of_an_older_schema_gets_one_advice_that_works(project_root, monkeypatch, capsys):
    """An older errorkb's report cannot be read or merged: verify said "regenerate it with errorkb verify" and, in
    the same line, "restore it (git checkout ...)", which brings back the same file. One advice: move it away; and
    after that, verify runs."""
    path = write_standing(project_root)
    old = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**old, "schema": 1}), encoding="utf-8")
    monkeypatch.setattr(engine, "verify", lambda *a, **k: pytest.fail("ran although the report cannot be kept"))
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1 and "move it away" in said, said
    assert "git checkout" not in said and "regenerate" not in said, said
    path.rename(path.with_name("old-latest.json"))
    fake_verify(monkeypatch)
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 0
    assert read_report(path).checks and path.with_name("old-latest.json").exists()


def test_a_report_that_breaks_during_a_run_is_kept_and_the_run_rescued(project_root, monkeypatch, capsys):
    """Cut while the run was under way: the file stays as it is, this run's records go beside it,
    and the message says how to bring both back (which then works)."""
    path = write_standing(project_root)
    whole = path.read_bytes()
    fake_verify(monkeypatch, during=lambda: path.write_bytes(whole[:-2]))
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1 and "errorkb report merge" in said, said
    assert path.read_bytes() == whole[:-2]
    (rescued,) = path.parent.glob("latest.rescued-*.json")
    assert str(rescued) in said
    assert [r.entry for r in read_report(rescued).checks] == [IDS[0]]
    path.write_bytes(whole)  # "restore it", then merge as told
    assert main(["--root", str(project_root), "report", "merge", str(path), str(rescued)]) == 0
    assert sorted(r.entry for r in read_report(path).checks) == sorted(IDS)


def test_a_cut_matrix_file_is_refused_and_the_site_says_so(project_root, monkeypatch, capsys, tmp_path):
    project = load_project(project_root)
    path = files.matrix_path(project)
    files.write_matrix(path, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())],
                       files.merged(None, "transformers", [], []).results)
    path.write_bytes(path.read_bytes()[:-2])
    cut = path.read_bytes()
    monkeypatch.setattr(runner, "ensure_env", lambda *a, **k: pytest.fail("ran although the file cannot be kept"))
    assert main(["--root", str(project_root), "matrix", "--release", "5.0.0"]) == 1
    said = capsys.readouterr().err.strip()
    assert len(said.splitlines()) == 1 and "not a version-matrix file" in said and "git checkout" in said, said
    assert path.read_bytes() == cut
    problem = files.matrix_problem(project)
    assert problem is not None and str(path) in problem
    assert main(["--root", str(project_root), "render", "--out", str(tmp_path / "out")]) == 0
    assert problem in capsys.readouterr().err
    other = tmp_path / "other.json"
    files.write_matrix(other, "transformers", [files.ReleaseStatus(release="5.1.0", ran=True, measured=now())], [])
    assert main(["--root", str(project_root), "report", "merge", str(path), str(other)]) == 1
    assert path.read_bytes() == cut


def test_the_strict_build_fails_on_an_unreadable_matrix_or_report(tmp_path):
    project = site_project(tmp_path / "kb")
    matrix = project / "reports" / "matrix" / "transformers.json"
    files.write_matrix(matrix, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [])
    assert mkdocs_build(project / "mkdocs.yml", tmp_path / "site").returncode == 0
    matrix.write_bytes(matrix.read_bytes()[:-2])
    built = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")
    assert built.returncode != 0 and "not a version-matrix file" in built.stderr, built.stderr
    matrix.unlink()
    report = write_standing(project)
    report.write_bytes(report.read_bytes()[:-2])
    built = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")
    assert built.returncode != 0 and "not a verification report" in built.stderr, built.stderr


@pytest.mark.parametrize("mode", [0o644, 0o664, 0o600])
def test_a_write_keeps_the_file_s_mode(project_root, monkeypatch, mode):
    path = write_standing(project_root)
    path.chmod(mode)
    fake_verify(monkeypatch)
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == mode


def test_a_new_report_gets_the_umask_s_mode_not_0600(project_root, monkeypatch):
    fake_verify(monkeypatch)
    old = os.umask(0o022)
    try:
        assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE((project_root / "reports" / "latest.json").stat().st_mode) == 0o644


_KILLED_WRITER = """
import os, sys, time
from pathlib import Path
from errorkb.results import store
os.fsync = lambda fd: time.sleep(600)  # stopped half way through a write, then killed
store.replace(Path(sys.argv[1]), "{}")
"""


def test_no_temp_file_is_left_even_after_a_writer_was_killed(project_root, monkeypatch):
    path = write_standing(project_root)
    writer = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(path)])
    try:
        for _ in range(600):
            if store.leftovers(path):
                break
            time.sleep(0.1)
        assert store.leftovers(path), "the writer never started its temp file"
    finally:
        writer.send_signal(signal.SIGKILL)
        writer.wait()
    assert store.leftovers(path) and read_report(path).checks, "killed mid-write: the temp stays, the report holds"
    fake_verify(monkeypatch)
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 0
    assert store.leftovers(path) == []
    assert sorted(p.name for p in path.parent.iterdir()) == ["latest.json"]


def test_report_merge_adds_to_what_out_holds(project_root, tmp_path):
    """A check OUT does not hold yet (an entry's before, where OUT holds its after) is added. The record is of an
    entry this knowledge base has: one of another's is left out and named (tests/test_reports_round16.py)."""
    path = write_standing(project_root)
    more = tmp_path / "more.json"
    new_report({"bundled": "b"}, [fake_record(IDS[0], role="before")]).write(more)
    assert main(["--root", str(project_root), "report", "merge", str(path), str(more)]) == 0
    assert sorted(r.id for r in read_report(path).checks) == sorted(
        [*(f"{entry}::after[bundled-cpu]" for entry in IDS), f"{IDS[0]}::before[bundled-cpu]"])


def test_a_record_dated_in_the_future_never_keeps_a_later_run_s_result_out(project_root, monkeypatch):
    """The record written last wins, by its date: a record (or matrix result) dated in the future, as
    a hand-edited report could carry, would otherwise win over every run to come."""
    path = project_root / "reports" / "latest.json"
    forged = fake_record(IDS[0], outcome=Outcome.FAIL).model_copy(update={"recorded_at": "2099-01-01T00:00:00+00:00",
                                                                          "verified_at": "2099-01-01T00:00:00+00:00"})
    new_report({"bundled": "b"}, [forged]).write(path)
    fake_verify(monkeypatch)
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 0
    (record,) = read_report(path).checks
    assert record.outcome is Outcome.PASS and record.recorded_at < "2099"
    status = files.ReleaseStatus(release="5.0.0", ran=True, measured="2099-01-01T00:00:00+00:00")
    result = files.Result(entry="e", release="5.0.0", digest="d", measured="2099-01-01", recorded="2099-01-01")
    fresh = [result.model_copy(update={"digest": "fresh", "measured": now(), "recorded": now()})]
    data = files.merged(files.merged(None, "transformers", [status], [result]), "transformers",
                        [status.model_copy(update={"ran": False, "measured": now()})], fresh)
    assert [r.digest for r in data.results] == ["fresh"] and data.status("5.0.0").ran is False


# -- a hand-edited file: two values for one key keep neither silently ---------------------------

def _with_a_second(text: str, key: str, value: str) -> str:
    """`text` (a report or matrix file) with `key` given a second value after its first one."""
    return text.replace(f'"{key}":', f'"{key}": {value},\n"{key}":', 1)


@pytest.mark.parametrize("key, value", [("checks", "[]"), ("targets", "{}"), ("outcome", '"fail"')])
def test_a_report_holding_a_key_twice_is_refused_never_half_read(project_root, monkeypatch, capsys, key, value):
    """JSON parsers keep the last of two values for one key (a hand-resolved merge conflict leaves
    both): the other list of results was dropped without a word, then gone at the next write."""
    path = write_standing(project_root)
    path.write_text(_with_a_second(path.read_text(encoding="utf-8"), key, value), encoding="utf-8")
    edited = path.read_bytes()
    monkeypatch.setattr(engine, "verify", lambda *a, **k: pytest.fail("ran although the report cannot be kept"))
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert f"duplicate key '{key}'" in said and "latest.json" in said and "line " in said, said
    assert path.read_bytes() == edited


def test_a_matrix_file_holding_a_key_twice_is_refused(tmp_path):
    matrix = files.MatrixFile.model_validate({"schema": files.SCHEMA, "package": "transformers", "updated": now()})
    text = _with_a_second(matrix.text(), "results", "[]")
    with pytest.raises(files.MatrixError, match="duplicate key 'results'.*line "):
        files.parse_matrix(text, tmp_path / "transformers.json")


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_report_holding_a_value_json_does_not_have_is_refused(project_root, monkeypatch, capsys, constant):
    """Python's parser reads NaN and Infinity, which JSON has not: they were written back as they
    came (or as null), and every other reader of the file (a browser, jq, a CI dashboard) failed on it."""
    said = _refused_with_the_report_kept(project_root, monkeypatch, capsys, constant)
    assert f"{constant} is not a JSON value" in said, said


def _refused_with_the_report_kept(project_root, monkeypatch, capsys, value: str) -> str:
    """What `errorkb verify` says of a standing report holding `value` (JSON text) in its environment:
    it must refuse to run (exit 1), never a traceback, and leave the file byte for byte as it was."""
    path = write_standing(project_root)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"environment": {', f'"environment": {{"load": {value}, ', 1), encoding="utf-8")
    edited = path.read_bytes()
    monkeypatch.setattr(engine, "verify", lambda *a, **k: pytest.fail("ran although the report cannot be kept"))
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert "Traceback" not in said, said
    assert path.read_bytes() == edited
    return said


def test_a_report_or_matrix_holding_a_lone_surrogate_is_refused_never_a_traceback(tmp_path, monkeypatch, capsys):
    """JSON may escape half of a UTF-16 pair (`"\\ud800"`); Python reads it as a lone surrogate,
    which no UTF-8 file can hold: a hand-edited report holding one broke every page that quoted it
    (the build stopped with a UnicodeEncodeError traceback in the sanitizer), and written back it
    would fail the writer. It is refused as a NaN is, naming the file and the line."""
    project = site_project(tmp_path / "kb")
    path = write_standing(project)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"reason":"ok"', '"reason":"ok \\udc80 then \\ud83d\\ude00 paired"', 1),
                    encoding="utf-8")
    edited = path.read_bytes()
    monkeypatch.setattr(engine, "verify", lambda *a, **k: pytest.fail("ran although the report cannot be kept"))
    assert main(["--root", str(project), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert "lone surrogate" in said and "\\udc80" in said and "line " in said, said
    assert path.read_bytes() == edited
    built = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")  # strict: an unreadable report fails it
    assert built.returncode != 0 and "lone surrogate" in built.stderr, built.stderr[-3000:]
    assert "Traceback" not in built.stderr, built.stderr[-3000:]
    path.unlink()
    matrix = project / "reports" / "matrix" / "transformers.json"
    files.write_matrix(matrix, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [])
    matrix.write_text(matrix.read_text(encoding="utf-8").replace('"5.0.0"', '"5.0.0\\ud800"'), encoding="utf-8")
    with pytest.raises(store.Unreadable, match="lone surrogate"):
        files.load_matrix(matrix)


# -- numbers too large for a double, and a folder that cannot be written ---------------------------

@pytest.mark.parametrize("number", ["1e999", "-1e400", "1" + "0" * 400 + ".5"], ids=["1e999", "-1e400", "401 digits"])
def test_a_report_or_matrix_holding_a_number_too_large_for_a_double_is_refused(project_root, monkeypatch, capsys,
                                                                                 number):
    """`1e999` is valid JSON, and Python's parser reads it as infinity: a `duration_s` of 1e999 was
    written back as null (the measurement gone), an environment value as `Infinity` (which errorkb's
    own reader then refused, and every other reader of the file too). Refused as NaN is, with its line."""
    said = _refused_with_the_report_kept(project_root, monkeypatch, capsys, number)
    assert "too large" in said and "(line 5)" in said, said
    matrix = project_root / "reports" / "matrix" / "transformers.json"
    files.write_matrix(matrix, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [])
    matrix.write_text(matrix.read_text(encoding="utf-8").replace('"schema":', f'"x": {number}, "schema":', 1),
                      encoding="utf-8")
    with pytest.raises(store.Unreadable, match="too large"):
        files.load_matrix(matrix)


def test_a_finite_number_near_the_limit_of_a_double_still_reads():
    assert store.parse_json("[1.7976931348623157e308, -1e308, 5e-324, 1e-400]") == [
        1.7976931348623157e308, -1e308, 5e-324, 0.0]


def _unwritable(monkeypatch, folder: Path, errno_code: int) -> None:
    """Creating any file in `folder` fails with `errno_code`, as on a read-only folder or a full disk
    (the tests run as root, whom a folder's mode does not stop)."""
    import errno as errnos

    real = os.open

    def refusing(path, flags, *args, **kwargs):
        if flags & os.O_CREAT and Path(os.fsdecode(path)).parent.resolve() == folder.resolve():
            raise OSError(errno_code, os.strerror(errno_code), os.fsdecode(path))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    assert errnos.errorcode[errno_code]


@pytest.mark.parametrize("code", [30, 13, 28])  # EROFS, EACCES, ENOSPC
def test_a_report_folder_that_cannot_be_written_loses_no_result_and_says_so(project_root, monkeypatch, capsys, code):
    """The checks ran (minutes, on a GPU runner hours) and the report could not be written: a
    traceback, and every verdict of the run gone. Now the standing report is left as it was, this
    run's results go to a file elsewhere that the message names, with how to merge them back."""
    path = write_standing(project_root)
    before = path.read_bytes()
    fake_verify(monkeypatch)
    _unwritable(monkeypatch, path.parent, code)
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert "Traceback" not in said and len(said.splitlines()) == 1, said
    assert str(path) in said and os.strerror(code) in said and "errorkb report merge" in said, said
    assert path.read_bytes() == before
    rescued = Path(re.search(r"results are in (\S+?\.json)", said).group(1))
    assert not rescued.is_relative_to(path.parent) and [r.entry for r in read_report(rescued).checks] == [IDS[0]]
    monkeypatch.undo()
    assert main(["--root", str(project_root), "report", "merge", str(path), str(rescued)]) == 0
    rescued.unlink()


def test_a_matrix_folder_that_cannot_be_written_raises_refused_with_the_data_elsewhere(tmp_path, monkeypatch):
    path = tmp_path / "reports" / "matrix" / "transformers.json"
    path.parent.mkdir(parents=True)
    _unwritable(monkeypatch, path.parent, 30)
    with pytest.raises(store.Refused) as refused:
        files.write_matrix(path, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [])
    assert str(path) in str(refused.value) and refused.value.rescued is not None
    assert not path.exists() and files.load_matrix(refused.value.rescued) is not None
    refused.value.rescued.unlink()


# -- the pytest plugin's report (a shard's output): rescued as `errorkb verify`'s is ----------------

_FAKE_VERIFIER = '''
from errorkb import pytest_plugin
from errorkb.results.records import CheckRecord, Code, Outcome
from errorkb.results.report import now


class Verifier:
    """Every check passes at once: what is tested here is where its record goes, not the check."""
    fingerprints = {"bundled": "b"}

    def record(self, check):
        return CheckRecord(id=check.id, entry=check.entry.id, role=check.role, snippet="s.py", target=check.target,
                           device=check.device, outcome=Outcome.PASS, code=Code.RAN_CLEAN, reason="ok",
                           expected="as documented", verified_at=now(), recorded_at=now(), inputs="i")

    def close(self):
        pass


pytest_plugin._Session.verifier = property(lambda self: Verifier())
'''


@pytest.mark.parametrize("blocked", ["a file where the folder is", "unwritable folder"])
def test_the_pytest_plugin_s_report_that_cannot_be_written_is_rescued_never_a_traceback(project_root, blocked):
    """`pytest --errorkb --errorkb-report X` (a CI shard's output) where X cannot be written: the run's
    records ended in an INTERNALERROR traceback and were gone. Now they are saved elsewhere, the
    message names X, why and the file holding them, and the run fails (nothing was silently lost)."""
    (project_root / "conftest.py").write_text(_FAKE_VERIFIER, encoding="utf-8")
    if blocked == "a file where the folder is":
        (project_root / "out").write_text("a file\n", encoding="utf-8")
        target = project_root / "out" / "shard.json"
        preload = ""
    else:  # the tests run as root, whom a folder's mode does not stop: refused as a read-only folder would be
        (project_root / "out").mkdir()
        target = project_root / "out" / "shard.json"
        preload = ("import errno, os\n_open = os.open\n"
                   f"def _refuse(path, flags, *a, **k):\n    if flags & os.O_CREAT and {str(target.parent)!r} in "
                   "os.fsdecode(path):\n        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fsdecode(path))\n"
                   "    return _open(path, flags, *a, **k)\nos.open = _refuse\n")
    (project_root / "conftest.py").write_text(_FAKE_VERIFIER + preload, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--errorkb", "--errorkb-target",
                          "bundled", "--errorkb-device", "cpu", "--errorkb-report", str(target)], cwd=project_root,
                         capture_output=True, text=True, timeout=300)
    said = run.stdout + run.stderr
    assert "Traceback" not in said and "INTERNALERROR" not in said, said[-3000:]
    assert run.returncode != 0, said[-3000:]
    found = re.search(r"results are in (\S+?\.json)", said)
    assert found and str(target) in said, said[-3000:]
    rescued = Path(found.group(1))
    try:
        assert sorted({record.entry for record in read_report(rescued).checks}) == sorted(IDS)
        assert stat.S_IMODE(rescued.stat().st_mode) == 0o600
    finally:
        rescued.unlink()
    assert not target.exists()


# -- rescued results hold what was measured from strangers' code: readable by their owner only ------

@pytest.mark.parametrize("where", ["beside", "elsewhere"])
def test_a_rescued_report_is_readable_by_its_owner_only(project_root, monkeypatch, capsys, where):
    path = write_standing(project_root)
    fake_verify(monkeypatch)
    if where == "beside":
        whole = path.read_bytes()
        fake_verify(monkeypatch, during=lambda: path.write_bytes(whole[:-2]))
    else:
        _unwritable(monkeypatch, path.parent, 28)
    old = os.umask(0o022)
    try:
        assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    finally:
        os.umask(old)
    rescued = Path(re.search(r"results are in (\S+?\.json)", capsys.readouterr().err).group(1))
    try:
        assert rescued.is_relative_to(path.parent) == (where == "beside")
        assert stat.S_IMODE(rescued.stat().st_mode) == 0o600
    finally:
        rescued.unlink()


def test_a_private_report_is_never_written_through_a_more_open_temporary_file(project_root, monkeypatch):
    """The file's mode is kept, but its text was first written to a temporary file made with the
    umask's mode (0644) and only then narrowed: a 0600 report was readable by all while it was written."""
    path = write_standing(project_root)
    path.chmod(0o600)
    made: list[int] = []
    real = os.open

    def recording(name, flags, mode=0o777, *args, **kwargs):
        if os.fsdecode(name).endswith(".tmp"):
            made.append(mode)
        return real(name, flags, mode, *args, **kwargs)

    monkeypatch.setattr(os, "open", recording)
    store.replace(path, path.read_text(encoding="utf-8"))
    assert made and all(mode & 0o077 == 0 for mode in made), [oct(mode) for mode in made]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_pytest_plugin_under_xdist_writes_every_worker_s_records(project_root):
    """`pytest --errorkb -n 2 --errorkb-report X`: each worker replaced X with its own share of the
    records at its end, so the report held the last worker's checks only (4 of 7 here)."""
    (project_root / "conftest.py").write_text(_FAKE_VERIFIER, encoding="utf-8")
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--errorkb", "--errorkb-target", "bundled",
               "--errorkb-device", "cpu", "--errorkb-report", "shard.json"]
    alone = subprocess.run(command, cwd=project_root, capture_output=True, text=True, timeout=300)
    assert alone.returncode == 0, alone.stdout[-2000:]
    expected = sorted(record.id for record in read_report(project_root / "shard.json").checks)
    assert len(expected) > 2
    (project_root / "shard.json").unlink()
    spread = subprocess.run([*command, "-n", "2"], cwd=project_root, capture_output=True, text=True, timeout=300)
    assert spread.returncode == 0, spread.stdout[-2000:]
    assert sorted(record.id for record in read_report(project_root / "shard.json").checks) == expected


@pytest.mark.parametrize("depth", [100_000, 400], ids=["past the parser", "past the writer"])
def test_a_report_or_matrix_nested_deeper_than_errorkb_writes_is_refused_never_a_traceback(
        project_root, monkeypatch, capsys, depth):
    """A shard from another machine whose environment holds `[[[...` 100,000 deep stopped `errorkb verify`
    (and the site's build) with a RecursionError from the JSON parser; 400 deep parsed, and the run's
    write failed on it ("Maximum serialization depth exceeded"), its results lost with the traceback."""
    said = _refused_with_the_report_kept(project_root, monkeypatch, capsys, "[" * depth + "]" * depth)
    assert "nested more than" in said and "(line 5)" in said, said
    matrix = project_root / "reports" / "matrix" / "transformers.json"
    files.write_matrix(matrix, "transformers", [files.ReleaseStatus(release="5.0.0", ran=True, measured=now())], [])
    matrix.write_text(matrix.read_text(encoding="utf-8").replace('"schema":', f'"x": {"[" * depth + "]" * depth}, '
                                                                  '"schema":', 1), encoding="utf-8")
    with pytest.raises(store.Unreadable, match="nested more than"):
        files.load_matrix(matrix)


def test_the_pytest_plugin_s_report_merges_into_a_report_that_is_there(project_root):
    """`pytest --errorkb -k <one entry> --errorkb-report reports/latest.json` replaced the standing report
    with that entry's records alone: every other entry's verdicts were gone. It merges per record, as
    `errorkb verify --report` does (and a file there that does not parse is refused, this run rescued)."""
    path = write_standing(project_root)
    (project_root / "conftest.py").write_text(_FAKE_VERIFIER, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--errorkb", "--errorkb-target",
                          "bundled", "--errorkb-device", "cpu", "-k", IDS[1], "--errorkb-report", str(path)],
                         cwd=project_root, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:]
    records = read_report(path).checks
    assert {record.entry for record in records} == set(IDS), "the other entry's records were lost"
    assert any(record.entry == IDS[1] and record.role == "before" for record in records)
    cut = path.read_bytes()[:-2]
    path.write_bytes(cut)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--errorkb", "--errorkb-target",
                          "bundled", "--errorkb-device", "cpu", "-k", IDS[1], "--errorkb-report", str(path)],
                         cwd=project_root, capture_output=True, text=True, timeout=300)
    said = run.stdout + run.stderr
    assert run.returncode != 0 and "Traceback" not in said and "not a verification report" in said, said[-2000:]
    assert path.read_bytes() == cut
    (rescued,) = path.parent.glob("latest.rescued-*.json")
    assert {record.entry for record in read_report(rescued).checks} == {IDS[1]}


@pytest.mark.parametrize("junit", ["fifo", "full disk"])
def test_a_junit_file_that_cannot_be_written_loses_no_verdict_of_the_run(project_root, monkeypatch, capsys, junit):
    """`errorkb verify --junit X` wrote X before the report: a FIFO at X blocked the run at its very end
    (after every check had run) forever, and a full disk there ended it with the report unwritten, every
    verdict of the run gone. The report is written first; X is written as a report is (never into a FIFO),
    and a failure to write it is one line, with the run's verdicts kept."""
    import errno
    import threading

    fake_verify(monkeypatch)
    folder = project_root / "out"
    folder.mkdir()
    target = folder / "junit.xml"
    if junit == "fifo":
        os.mkfifo(target)
    else:
        _unwritable(monkeypatch, folder, errno.ENOSPC)
    codes: list[int] = []
    run = threading.Thread(target=lambda: codes.append(main(["--root", str(project_root), "verify", IDS[0],
                                                             "--no-cache", "--junit", str(target)])), daemon=True)
    run.start()
    run.join(60)
    if run.is_alive():
        with open(target, "rb"):  # free the blocked writer before failing
            pass
        run.join(10)
        pytest.fail("the run blocked writing its JUnit file into a FIFO")
    said = capsys.readouterr().err
    assert "Traceback" not in said, said
    assert [r.entry for r in read_report(project_root / "reports" / "latest.json").checks] == [IDS[0]]
    if junit == "fifo":
        assert codes == [0] and target.is_file() and b"<testsuite" in target.read_bytes()
    else:
        assert codes == [1] and str(target) in said, said


def test_a_report_path_that_is_not_a_regular_file_is_never_replaced_nor_rescued_beside(tmp_path):
    """A report path that is a device or a FIFO: its run's data was saved beside it (for /dev/null, a file in
    /dev), and a caller whose reader did not refuse it had it replaced by a regular file (as root, /dev/null
    itself). It is left as it is and the data goes to the temporary folder. (A FIFO stands in for a device:
    a test must never touch the machine's /dev.)"""
    path = tmp_path / "latest.json"
    os.mkfifo(path)
    with pytest.raises(store.Refused) as refused:
        store.update(path, lambda path: None, lambda current: {"new": 1}, json.dumps, "restore it")
    rescued = refused.value.rescued
    try:
        assert stat.S_ISFIFO(path.lstat().st_mode) and sorted(tmp_path.iterdir()) == [path]
        assert rescued is not None and rescued.parent == Path(tempfile.gettempdir()), rescued
        assert f"{path}: not a regular file" in str(refused.value), refused.value
    finally:
        if rescued is not None:
            rescued.unlink(missing_ok=True)


# -- round eleven: a report that is a link -------------------------------------------------------------

def test_a_report_that_is_a_link_inside_its_folder_is_written_through_and_stays_a_link(project_root, monkeypatch):
    """reports/latest.json a link to reports/kept/latest.json (committed so, or made by hand): a run replaced
    the link by a file of its own, and the file it named kept the old records without a word. The run
    writes through the link, as an editor saving it would; the link stays."""
    reports = project_root / "reports"
    kept = reports / "kept" / "latest.json"
    kept.parent.mkdir(parents=True)
    new_report({"bundled": "b"}, [fake_record(IDS[0])]).write(kept)
    (reports / "latest.json").symlink_to("kept/latest.json")
    fake_verify(monkeypatch)
    assert main(["--root", str(project_root), "verify", IDS[1], "--no-cache"]) == 0
    assert (reports / "latest.json").is_symlink() and os.readlink(reports / "latest.json") == "kept/latest.json"
    assert sorted(record.entry for record in read_report(kept).checks) == sorted(IDS)
    assert store.leftovers(reports / "latest.json") == [] and store.leftovers(kept) == []


def test_a_dangling_link_out_of_the_reports_folder_is_refused_never_replaced(tmp_path):
    """A link leading out of its folder is refused when its file is there (`read_regular`); one whose file is
    not there yet was silently replaced by a file (and is the same link: refused, the run's data rescued)."""
    folder = tmp_path / "reports"
    folder.mkdir()
    path = folder / "latest.json"
    path.symlink_to(tmp_path / "elsewhere" / "latest.json")
    with pytest.raises(store.Refused) as refused:
        store.update(path, lambda at: store.read_regular(at), lambda current: {"new": 1}, json.dumps, "restore it")
    rescued = refused.value.rescued
    try:
        assert path.is_symlink() and not (tmp_path / "elsewhere").exists()
        assert "leads out of its folder" in str(refused.value) and rescued is not None, refused.value
        assert json.loads(rescued.read_text(encoding="utf-8")) == {"new": 1}
    finally:
        if rescued is not None:
            rescued.unlink(missing_ok=True)


def test_a_disk_that_fills_while_the_report_is_written_leaves_the_old_file_whole_and_no_temporary(
        project_root, monkeypatch, capsys):
    """The disk filling half-way through the write (the temporary file made, its data not yet on disk): the
    standing report stays whole, the half-written temporary file goes, this run's records are rescued. (A
    full disk at the file's creation is `test_a_report_folder_that_cannot_be_written_loses_no_result_and_says_so`.)"""
    import errno

    path = write_standing(project_root)
    before = path.read_bytes()
    fake_verify(monkeypatch)
    real, failed = os.fsync, []

    def full_once(descriptor: int) -> None:
        if not failed:
            failed.append(descriptor)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(descriptor)

    monkeypatch.setattr(os, "fsync", full_once)
    assert main(["--root", str(project_root), "verify", IDS[0], "--no-cache"]) == 1
    said = capsys.readouterr().err.strip()
    assert failed and "Traceback" not in said and os.strerror(errno.ENOSPC) in said, said
    assert path.read_bytes() == before and store.leftovers(path) == []
    rescued = Path(re.search(r"results are in (\S+?\.json)", said).group(1))
    assert [record.entry for record in read_report(rescued).checks] == [IDS[0]]
    rescued.unlink()


def test_the_pytest_plugin_says_the_records_of_a_removed_entry_it_dropped(project_root):
    """`pytest --errorkb --errorkb-report X` over a standing report holding an entry the knowledge base no longer has:
    the plugin's update of X dropped that entry's records without a word (`errorkb verify` says so: round
    twenty-two); the run says which and where they still are, as the CLI does, and still passes."""
    (project_root / "conftest.py").write_text(_FAKE_VERIFIER, encoding="utf-8")
    target = project_root / "reports" / "latest.json"
    target.parent.mkdir(exist_ok=True)
    new_report({"bundled": "b"}, [fake_record(entry) for entry in [*IDS, "removed-since"]]).write(target)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--errorkb", "--errorkb-target",
                          "bundled", "--errorkb-device", "cpu", "--errorkb-report", str(target)], cwd=project_root,
                         capture_output=True, text=True, timeout=300)
    said = run.stdout + run.stderr
    assert run.returncode == 0, said[-3000:]
    assert "records dropped from the report" in said and "(removed-since) dropped" in said, said[-3000:]
    assert "git show HEAD:reports/latest.json" in said, said[-3000:]
    assert "removed-since" not in {record.entry for record in read_report(target).checks}
