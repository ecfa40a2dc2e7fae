"""Reports, round twenty-three: a writer that holds the lock and stops or dies, a full disk, a key given twice.

- a writer stopped while it holds the reports folder's lock (Ctrl-Z in another terminal, a debugger): the next run
  waited for it for ever, without a word, its checks done and its Ctrl-C held until the write (`store.held`). Now it
  says it waits, waits at most `store.LOCK_WAIT`, and then leaves the file as it was and rescues its own results;
- (held, the controls) a writer that dies holding the lock, mid-write: the next run writes, the leftover half file
  goes, no record is lost; a full disk (a small tmpfs in a namespace of its own where `unshare` works, else a
  writer whose writes fail with ENOSPC): the file stays whole and the run's results are saved elsewhere; a key given
  twice in a report is refused at its line (a parser keeps the last silently).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from errorkb.results import store
from errorkb.results.report import (
    ReportError,
    new_report,
    now,
    read_report,
    read_reports,
    update_standing,
    write_report,
)
from tests.test_reports_round19 import _record

ROOT = Path(__file__).resolve().parent.parent

HOLDER = textwrap.dedent("""\
    import os, signal, sys
    from pathlib import Path
    from errorkb.results import store
    folder = Path(sys.argv[1])
    with store.locked(folder):
        # a writer cut short mid-write: its temporary file, half written
        (folder / ".latest.json.0123456789ab.tmp").write_text('{"schema": 1, "checks": [')
        print("holding", flush=True)
        if sys.argv[2] == "dies":
            os.kill(os.getpid(), signal.SIGKILL)
        signal.pause()  # a stopped writer: holds the lock until it is ended
    """)


def _holder(folder: Path, how: str) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), how], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert process.stdout is not None and process.stdout.readline() == "holding\n"
    return process


def _standing(folder: Path) -> Path:
    path = folder / "latest.json"
    new_report({"bundled": "b"}, [_record("kept-one")]).write(path)
    return path


def _write(path: Path) -> object:
    fresh = new_report({"bundled": "b"}, [_record("new-one", stamp=now())])
    return write_report(path, fresh, lambda on_disk, run: update_standing(on_disk, run, {"kept-one", "new-one"}))


def test_a_writer_that_dies_holding_the_lock_stops_no_later_run(tmp_path):
    """The control: the lock dies with its holder (flock), and the half file it left is no report."""
    path = _standing(tmp_path)
    holder = _holder(tmp_path, "dies")
    assert holder.wait(timeout=60) == -signal.SIGKILL
    _write(path)
    assert sorted(check.entry for check in read_report(path).checks) == ["kept-one", "new-one"]
    assert store.leftovers(path) == []


def test_a_writer_stopped_holding_the_lock_is_waited_for_a_bounded_time_and_nothing_is_lost(tmp_path, monkeypatch,
                                                                                             capsys):
    """The run waits (and says so), then leaves the file as it was and saves its own results beside it, with how
    to merge them: before, it waited for ever."""
    path = _standing(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(store, "LOCK_WAIT", 0.5)
    holder = _holder(tmp_path, "stops")
    try:
        with pytest.raises(store.Refused) as refused:
            _write(path)
    finally:
        holder.kill()
        holder.wait(timeout=60)
    said = str(refused.value)
    assert "held its folder's lock" in said and "errorkb report merge" in said, said
    assert "waiting for another process writing into" in capsys.readouterr().err
    assert path.read_bytes() == before
    rescued = refused.value.rescued
    assert rescued is not None and [check.entry for check in read_report(rescued).checks] == ["new-one"]
    _write(path)  # the holder gone, the next run writes
    assert sorted(check.entry for check in read_report(path).checks) == ["kept-one", "new-one"]


def test_a_full_disk_keeps_the_file_whole_and_the_runs_results_elsewhere_fake_writer(tmp_path, monkeypatch):
    """Every write into the reports folder fails with ENOSPC (the temporary file, the rescue beside it): the file
    stays as it was, no half file stays, and the results are in the system's temporary folder."""
    path = _standing(tmp_path / "reports")
    before = path.read_bytes()
    elsewhere = tmp_path / "tmp"
    elsewhere.mkdir()
    monkeypatch.setattr(store.tempfile, "gettempdir", lambda: str(elsewhere))
    real_fdopen = os.fdopen
    reports = os.path.realpath(path.parent)

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.handle, name)

    def fdopen(descriptor, *args, **kwargs):
        handle = real_fdopen(descriptor, *args, **kwargs)
        where = os.path.realpath(f"/proc/self/fd/{descriptor}")
        return Full(handle) if "w" in (args[0] if args else kwargs.get("mode", "r")) and \
            os.path.dirname(where) == reports else handle

    monkeypatch.setattr(store.os, "fdopen", fdopen)
    with pytest.raises(store.Refused) as refused:
        _write(path)
    said = str(refused.value)
    assert "No space left on device" in said and "free space" in said, said
    assert path.read_bytes() == before and store.leftovers(path) == []
    rescued = refused.value.rescued
    assert rescued is not None and rescued.parent == elsewhere, said
    assert [check.entry for check in read_report(rescued).checks] == ["new-one"]


CHILD = textwrap.dedent("""\
    import sys
    from pathlib import Path
    from errorkb.results import store
    from errorkb.results.report import new_report, now, update_standing, write_report
    from tests.test_reports_round19 import _record
    path = Path(sys.argv[1]) / "latest.json"
    new_report({"bundled": "b"}, [_record("kept-one")]).write(path)
    before = path.read_bytes()
    big = [_record(f"new-{number:05d}", stamp=now()) for number in range(400)]  # far more than the disk holds
    try:
        known = {"kept-one", *(record.entry for record in big)}
        write_report(path, new_report({"bundled": "b"}, big), lambda on_disk, run: update_standing(on_disk, run, known))
    except store.Refused as refused:
        assert path.read_bytes() == before, "the standing report changed"
        assert store.leftovers(path) == [], store.leftovers(path)
        assert refused.rescued is not None and not str(refused.rescued).startswith(sys.argv[1]), str(refused)
        print("REFUSED", refused.rescued)
    else:
        print("WRITTEN")
    """)


def test_a_full_disk_keeps_the_file_whole_and_the_runs_results_elsewhere_tmpfs(tmp_path):
    """The same on a real full disk: a 64 KiB tmpfs, mounted in a user and mount namespace of the test's own."""
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rm", "true"], capture_output=True).returncode != 0:
        pytest.skip("no user namespaces here (the fake writer's test runs instead)")
    folder = tmp_path / "small"
    folder.mkdir()
    elsewhere = tmp_path / "tmp"
    elsewhere.mkdir()
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    result = subprocess.run([unshare, "-rm", "sh", "-c", 'mount -t tmpfs -o size=64k tmpfs "$1" && exec "$2" "$3" "$1"',
                             "sh", str(folder), sys.executable, str(script)], capture_output=True, text=True,
                            timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT), "TMPDIR": str(elsewhere)})
    assert result.returncode == 0 and result.stdout.startswith("REFUSED "), result.stdout + result.stderr
    rescued = Path(result.stdout.split(maxsplit=1)[1].strip())
    assert rescued.parent == elsewhere
    assert len(read_report(rescued).checks) == 400


def test_a_key_given_twice_in_a_report_is_refused_at_its_line(tmp_path):
    """The control: a merge conflict resolved by keeping both sides: a parser keeps the second value silently, and
    the next write would lose the first."""
    path = tmp_path / "latest.json"
    data = json.loads(new_report({"bundled": "b"}, [_record("one")]).text())
    text = json.dumps(data, indent=1)
    twice = text.replace('"outcome": "pass"', '"outcome": "pass",\n  "outcome": "fail"', 1)
    assert twice != text
    path.write_text(twice, encoding="utf-8")
    with pytest.raises(ReportError, match=r"duplicate key 'outcome' \(line \d+\)"):
        read_report(path)
    _, problems = read_reports(tmp_path, ["cpu"])
    assert len(problems) == 1 and "duplicate key 'outcome'" in problems[0], problems
