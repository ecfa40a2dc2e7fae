"""Reports, round eighteen: matrix shards that say which shard they are, and a refused write under Ctrl-C.

`errorkb matrix --shard K/N` wrote a file that did not say it was shard K of N: `errorkb report merge` joined two
files of the same shard, shards of two splits, or a split with a shard missing, and the merged file read as one
whole run. Now a shard's file records its shard, and the merge refuses what is not one split's shards once each.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.results import matrix as files
from tests.kb import copy_kb

IDS = ["head-dim-list-length", "num-heads-list-length"]
STAMP = "2026-12-01T10:00:00+00:00"


def _shard_file(path: Path, release: str, shard: tuple[list[int], int] | None, entry: str = IDS[0]) -> Path:
    """A matrix file as `errorkb matrix --shard` writes it: one release's status and one result, the shard said."""
    verdicts = files.Verdicts(outcome="pass", code="raised-as-documented", reason="ok")
    data = files.MatrixFile(package="transformers", updated=STAMP,
                            shard=None if shard is None else files.Shard(ran=shard[0], of=shard[1]),
                            releases=[files.ReleaseStatus(release=release, ran=True, measured=STAMP)],
                            results=[files.Result(entry=entry, release=release, before=verdicts, digest="d",
                                                  measured=STAMP, recorded=STAMP)])
    path.write_text(data.text(), encoding="utf-8")
    return path


def test_a_shard_run_records_its_shard_and_shards_written_into_one_file_add_up(tmp_path):
    path = tmp_path / "transformers.json"
    status = files.ReleaseStatus(release="5.0.0", ran=True, measured=files.now())
    files.write_matrix(path, "transformers", [status], [], shard=(2, 4))
    assert files.load_matrix(path).shard == files.Shard(ran=[2], of=4)
    files.write_matrix(path, "transformers", [status], [], shard=(3, 4))  # a second shard run into the same file
    assert files.load_matrix(path).shard == files.Shard(ran=[2, 3], of=4)
    files.write_matrix(path, "transformers", [status], [], shard=(1, 2))  # another split: this run's shard alone
    assert files.load_matrix(path).shard == files.Shard(ran=[1], of=2)
    files.write_matrix(path, "transformers", [status], [])  # a run of no shard: the file is no shard's now
    assert files.load_matrix(path).shard is None


def test_errorkb_matrix_hands_its_shard_to_the_run(tmp_path, monkeypatch):
    from errorkb.verify import matrix

    project = copy_kb(tmp_path / "kb", IDS)
    seen = {}

    def run_matrix(project, loaded, releases, **options):
        seen.update(options, releases=releases)
        return files.merged(None, "transformers", [], [])

    monkeypatch.setattr(matrix, "run_matrix", run_matrix)
    assert main(["--root", str(project), "matrix", "--release", "5.0.0", "--release", "5.1.0", "--shard",
                 "1/1"]) == 0
    assert seen["shard"] == (1, 1) and seen["releases"] == ["5.0.0", "5.1.0"]


def test_a_shard_with_no_release_of_its_own_still_says_it_ran(tmp_path):
    """A split of few releases leaves a shard with none: its file must still say the shard ran (a merge that checks
    the split is whole would otherwise miss it), and nothing else in the file changes."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.verify import matrix

    root = copy_kb(tmp_path / "kb", IDS)
    project = load_project(root)
    path = files.matrix_path(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    _shard_file(path, "5.0.0", None)
    before = files.load_matrix(path)
    matrix.run_matrix(project, load_project_entries(project).entries, [], shard=(3, 4))
    after = files.load_matrix(path)
    assert after.shard == files.Shard(ran=[3], of=4)
    assert (after.releases, after.results) == (before.releases, before.results)


@pytest.mark.parametrize("case", ["same shard twice", "two splits"])
def test_report_merge_refuses_matrix_files_that_are_not_one_split_s_shards_once_each(tmp_path, capsys, case):
    project = copy_kb(tmp_path / "kb", IDS)
    a = _shard_file(tmp_path / "a.json", "5.0.0", ([2], 4))
    b = _shard_file(tmp_path / "b.json", "5.1.0", ([2], 4) if case == "same shard twice" else ([1], 3))
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(a), str(b)]) == 1
    err = capsys.readouterr().err
    assert str(a) in err and str(b) in err and "Traceback" not in err, err
    assert ("2/4" in err and "twice" in err) if case == "same shard twice" else ("2/4" in err and "1/3" in err), err
    assert "--shard" in err, err  # what to do
    assert not out.exists()


def test_report_merge_complete_refuses_a_split_with_a_shard_missing_and_names_it(tmp_path, capsys):
    project = copy_kb(tmp_path / "kb", IDS)
    a = _shard_file(tmp_path / "a.json", "5.0.0", ([1], 3))
    b = _shard_file(tmp_path / "b.json", "5.1.0", ([3], 3))
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", "--complete", str(out), str(a), str(b)]) == 1
    err = capsys.readouterr().err
    assert "2/3" in err and "missing" in err and str(a) in err and "Traceback" not in err, err
    assert not out.exists()
    assert main(["--root", str(project), "report", "merge", str(out), str(a), str(b)]) == 0  # not asked: merged
    assert files.load_matrix(out).shard is None  # a merge's file is no shard's


def test_whole_split_merged_with_complete_equals_one_run(tmp_path, capsys):
    project = copy_kb(tmp_path / "kb", IDS)
    a = _shard_file(tmp_path / "a.json", "5.0.0", ([1], 2))
    b = _shard_file(tmp_path / "b.json", "5.1.0", ([2], 2))
    both = _shard_file(tmp_path / "both.json", "5.0.0", None)
    whole = files.merged(files.load_matrix(both), "transformers", files.load_matrix(b).releases,
                         files.load_matrix(b).results)
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", "--complete", str(out), str(a), str(b)]) == 0
    merged = files.load_matrix(out)
    assert (merged.releases, merged.results, merged.shard) == (whole.releases, whole.results, None)


def test_a_matrix_file_written_before_shards_were_recorded_still_merges_with_a_note(tmp_path, capsys):
    project = copy_kb(tmp_path / "kb", IDS)
    old = _shard_file(tmp_path / "old.json", "5.0.0", None)
    new = _shard_file(tmp_path / "new.json", "5.1.0", ([2], 2))
    out = tmp_path / "out.json"
    assert main(["--root", str(project), "report", "merge", str(out), str(old), str(new)]) == 0
    err = capsys.readouterr().err
    assert str(old) in err and "no shard" in err, err
    assert len(files.load_matrix(out).releases) == 2
    # asked to check the split is whole, a file that cannot say its shard is refused, not guessed
    assert main(["--root", str(project), "report", "merge", "--complete", str(tmp_path / "o2.json"), str(old),
                 str(new)]) == 1
    assert str(old) in capsys.readouterr().err


@pytest.mark.parametrize("shard", [{"ran": [5], "of": 4}, {"ran": [], "of": 4}, {"ran": [1, 1], "of": 4},
                                   {"ran": [1], "of": 10**9}, {"ran": list(range(1, 3000)), "of": 2999}, "2/4"])
def test_a_shard_field_that_is_no_shard_is_a_clear_problem(tmp_path, shard):
    import json

    path = _shard_file(tmp_path / "a.json", "5.0.0", ([1], 4))
    data = json.loads(path.read_text())
    data["shard"] = shard
    path.write_text(json.dumps(data))
    with pytest.raises(files.MatrixError, match=r"shard"):
        files.load_matrix(path)


# -- a signal while a refused write rescues the run: the user learns where the run's results went ----------------


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler, as in a terminal: a process a non-interactive shell starts in the background
    inherits SIGINT ignored, and Python keeps it so (the held signal would then rightly never act)."""
    earlier = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, earlier)


def test_ctrl_c_during_a_refused_merge_says_where_the_merged_results_are(tmp_path, capsys, monkeypatch,
                                                                         python_sigint):
    """Ctrl-C while `report merge` found OUT unreadable: the merge was rescued beside it, then the interrupt acted
    and the command said "interrupted" alone; the one line naming the rescued file was lost."""
    from errorkb.results import store

    project = copy_kb(tmp_path / "kb", IDS)
    shard = _shard_file(tmp_path / "a.json", "5.0.0", None)
    out = tmp_path / "out.json"
    out.write_text('{"package": "transformers", "cut', encoding="utf-8")
    read = store.read_regular

    def interrupted_read(path, *args, **kwargs):
        if Path(path) == out:
            os.kill(os.getpid(), signal.SIGINT)
        return read(path, *args, **kwargs)

    monkeypatch.setattr(store, "read_regular", interrupted_read)
    assert main(["--root", str(project), "report", "merge", str(out), str(shard)]) == 130
    err = capsys.readouterr().err
    [rescued] = tmp_path.glob("out.rescued-*.json")
    assert "interrupted" in err and str(rescued) in err and f"errorkb report merge {out} {rescued}" in err, err
    assert files.load_matrix(rescued).results == files.load_matrix(shard).results  # nothing measured is lost
    assert out.read_text(encoding="utf-8") == '{"package": "transformers", "cut'


_ENDED_BY_SIGTERM = """
import json, os, signal, sys
from pathlib import Path
from errorkb.results import store
path = Path(sys.argv[1])
def read(at):
    os.kill(os.getpid(), signal.SIGTERM)  # SIGTERM's default: the process ends once the write is done
    raise store.Unreadable(f"{at}: does not parse")
store.update(path, read, lambda current: {"new": 1}, json.dumps, "restore it")
print("not reached")
"""


def test_a_signal_that_ends_the_process_during_a_refused_write_still_says_where_the_run_went(tmp_path):
    path = tmp_path / "latest.json"
    path.write_text("{cut", encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", _ENDED_BY_SIGTERM, str(path)], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert done.returncode == -signal.SIGTERM and "not reached" not in done.stdout, (done.stdout, done.stderr)
    [rescued] = tmp_path.glob("latest.rescued-*.json")
    assert str(rescued) in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert rescued.read_text(encoding="utf-8") == '{"new": 1}'


def test_ctrl_c_while_a_write_fails_on_a_full_disk_still_rescues_the_run_and_says_where(tmp_path, capsys,
                                                                                      monkeypatch, python_sigint):
    """The signal was held over the read and the write, but not between a failed write (a full disk) and its
    rescue: the interrupt acted there, and the run's results were neither written nor rescued."""
    import errno

    from errorkb.results import store

    path = tmp_path / "latest.json"
    path.write_text('{"old": 1}', encoding="utf-8")

    def full(at, text, mode=None):
        os.kill(os.getpid(), signal.SIGINT)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store, "replace", full)
    with pytest.raises(KeyboardInterrupt):
        store.update(path, lambda at: None, lambda current: {"new": 1}, json.dumps, "restore it")
    [rescued] = tmp_path.glob("latest.rescued-*.json")
    assert rescued.read_text(encoding="utf-8") == '{"new": 1}' and path.read_text(encoding="utf-8") == '{"old": 1}'
    assert str(rescued) in capsys.readouterr().err
