"""Live authoring, round nineteen: a report or matrix file read while it is being written under `mkdocs serve`.

errorkb writes its files atomically (a reader sees the old file or the new one), but a report also arrives by other
hands: a CI artefact copied in (`cp`, `unzip`), `git checkout` or `git pull` writing it in place. A rebuild that read
such a file half-written dropped it: every page lost its verification badges (or its release ranges) until the next
save. Now the rebuild says the file does not read and shows the last good read of it; once the write completes,
the next rebuild shows what a build from scratch shows. The half-written state is made deterministic (the test
writes the partial bytes itself), and a writer thread races a reader to show errorkb's own writes are never read
half.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import pytest

from errorkb.results import matrix as files
from errorkb.results.report import new_report, read_reports, update_standing, write_report
from tests.site.sitekb import record
from tests.site.test_live import IDS, kb, scratch_tree, serving, tree  # noqa: F401  (fixtures)

CHANGED = IDS[0]


def _report_bytes(root: Path, reason: str) -> bytes:
    checks = [record(root, entry_id, "after", "after.py", reason=reason if entry_id == CHANGED else "ok")
              for entry_id in IDS]
    return json.dumps({"schema": 2, "verifier": "2", "created": "2026-11-30T11:00:00+00:00",
                       "environment": {"python": "3.11.7", "runtime": "torch"},
                       "targets": {"bundled": "bundled-test"}, "checks": checks}).encode()


@pytest.fixture
def warnings(caplog):
    caplog.set_level(logging.WARNING, logger="mkdocs.plugins.errorkb")
    return caplog


@pytest.mark.parametrize("cut", [0.5, 0.99], ids=["half", "all-but-the-end"])
def test_a_report_read_half_written_keeps_the_last_good_read_and_says_so(kb, tmp_path, serving, warnings, cut):  # noqa: F811
    served = tmp_path / "served"
    serving(kb, served, "serve")
    before = tree(served)
    path = kb / "reports" / "latest.json"
    whole = _report_bytes(kb, "SECOND-READ")
    path.write_bytes(whole[: int(len(whole) * cut)])  # the copy is this far along when the rebuild reads it
    warnings.clear()
    serving(kb, served)
    said = " ".join(record.getMessage() for record in warnings.records)
    assert "latest.json" in said and "last good read" in said, said
    assert tree(served) == before, "a report read half-written changed the pages"
    path.write_bytes(whole)  # the copy completes
    serving(kb, served)
    after = tree(served)
    assert b"SECOND-READ" in after["verification/index.html"]
    assert after == scratch_tree(kb, tmp_path / "scratch", serving)


def test_a_report_that_never_read_is_said_and_left_out_as_a_build_from_scratch_leaves_it(kb, tmp_path, serving,  # noqa: F811
                                                                                           warnings):
    """No last good read to keep: the rebuild says why, and shows what `mkdocs build` shows."""
    path = kb / "reports" / "latest.json"
    path.write_bytes(_report_bytes(kb, "x")[:100])
    served = tmp_path / "served"
    serving(kb, served, "serve")
    said = " ".join(record.getMessage() for record in warnings.records)
    assert "latest.json" in said and "last good read" not in said, said
    assert tree(served) == scratch_tree(kb, tmp_path / "scratch", serving)


def test_a_matrix_file_read_half_written_keeps_its_release_ranges(kb, tmp_path, serving, warnings):  # noqa: F811
    path = kb / "reports" / "matrix" / "transformers.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    stamp = "2026-11-30T10:00:00+00:00"
    verdicts = files.Verdicts(outcome="pass", code="raised-as-documented", reason="ok")
    data = files.MatrixFile(package="transformers", updated=stamp,
                            releases=[files.ReleaseStatus(release=release, ran=True, measured=stamp)
                                      for release in ("5.0.0", "5.1.0")],
                            results=[files.Result(entry=CHANGED, release=release, before=verdicts, digest="d",
                                                  measured=stamp, recorded=stamp) for release in ("5.0.0", "5.1.0")])
    path.write_text(data.text(), encoding="utf-8")
    served = tmp_path / "served"
    serving(kb, served, "serve")
    before = tree(served)
    text = data.text()
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    warnings.clear()
    serving(kb, served)
    said = " ".join(record.getMessage() for record in warnings.records)
    assert "transformers.json" in said and "last good read" in said, said
    assert tree(served) == before, "a matrix file read half-written changed the pages"


def test_errorkb_s_own_writes_are_never_read_half(tmp_path):
    """A writer thread rewrites the standing report while the reader reads it, over and over: every read is one
    whole file (the old or the new), never a problem."""
    folder = tmp_path / "reports"
    folder.mkdir()
    path = folder / "latest.json"
    stop = threading.Event()
    written = []

    def writer():
        from errorkb.results.records import CheckRecord, Code, Outcome

        number = 0
        while not stop.is_set():
            number += 1
            fresh = new_report({"bundled": "b"}, [CheckRecord(
                id=f"e{number % 50}::after[bundled-cpu]", entry=f"e{number % 50}", role="after",
                snippet="snippets/e/after.py", target="bundled", device="cpu", outcome=Outcome.PASS,
                code=Code.RAN_CLEAN, reason="r" * (number % 7000), expected="as documented",
                verified_at="2026-11-30T10:00:00+00:00", inputs="i")])
            write_report(path, fresh, lambda on_disk, run: update_standing(on_disk, run, {f"e{i}" for i in range(50)}))
            written.append(number)

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        while not written and thread.is_alive():  # the file is there from the first write on
            stop.wait(0.01)
        reads = 0
        while len(written) < 200 and thread.is_alive():
            reports, problems = read_reports(folder, ["cpu"])
            assert problems == [] and len(reports) == 1, problems
            reads += 1
    finally:
        stop.set()
        thread.join(timeout=60)
    assert reads > 0 and len(written) >= 200
