"""A second library's knowledge base goes through every command with no code change, only its
profile: tests/fixtures/tinylib_kb documents `tinyq`, a tiny pure-Python queue, with its own
bundled and "upstream" implementations, on the plain `python` runtime."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "tinylib_kb"


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    """A copy of the fixture, with its upstream package "installed" and its bundled one importable,
    in this process and in every check's process."""
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    paths = [str(root / "upstream"), str(root / "bundled")]
    for path in reversed(paths):
        monkeypatch.syspath_prepend(path)
    monkeypatch.setenv("PYTHONPATH", ":".join(paths))
    return root


def test_check_and_drift(tinylib, capsys):
    assert main(["--root", str(tinylib), "check"]) == 0
    assert main(["--root", str(tinylib), "check", "--drift"]) == 0
    assert "2 entries OK; every source pin holds" in capsys.readouterr().out


def test_coverage_follows_the_profile_file(tinylib, capsys):
    assert main(["--root", str(tinylib), "coverage", "--json"]) == 0
    (followed,) = json.loads(capsys.readouterr().out)["files"]
    assert (followed["path"], followed["release"], followed["sites"]) == ("src/tinyq/queue.py", "1.2.0", 2)
    assert [(row["line"], row["entries"]) for row in followed["rows"]] == [
        (7, ["capacity-not-positive"]), (13, ["queue-full"])]


def test_verify_on_both_targets(tinylib, capsys):
    code = main(["--root", str(tinylib), "verify", "--no-cache", "--report", str(tinylib / "reports/latest.json")])
    printed = capsys.readouterr().out
    assert code == 0, printed
    report = json.loads((tinylib / "reports" / "latest.json").read_text())
    assert report["summary"] == {"pass": 12, "fail": 0, "not-run": 0, "not-applicable": 0}
    assert {c["device"] for c in report["checks"]} == {"cpu"}  # the python runtime has one device
    before = next(c for c in report["checks"] if c["id"] == "queue-full::before[upstream-cpu]")
    assert before["exception"]["raise_site"]["function"] == "BoundedQueue.put"
    assert before["environment"]["runtime"] == "python" and before["environment"]["library"] == "tinyq"


def test_a_broken_snippet_fails_on_the_second_library_too(tinylib, capsys):
    before = tinylib / "snippets" / "queue-full" / "before.py"
    before.write_text(before.read_text().replace('("a", "b", "c")', '("a", "b")'))
    assert main(["--root", str(tinylib), "verify", "queue-full", "--no-cache", "--target", "bundled",
                 "--report", str(tinylib / "r.json")]) == 1
    assert "exited normally; expected OverflowError from BoundedQueue.put" in capsys.readouterr().out


def test_render_writes_the_site_with_the_library_names(tinylib, tmp_path):
    assert main(["--root", str(tinylib), "verify", "--no-cache"]) == 0
    out = tmp_path / "site"
    assert main(["--root", str(tinylib), "render", "--out", str(out)]) == 0
    page = (out / "errors" / "tinyq" / "queue-full.md").read_text()
    assert "OverflowError" in page and "tinyq 1.2.0" in page and "verified" in page
    coverage = (out / "coverage.md").read_text()
    assert "src/tinyq/queue.py" in coverage and "2 of 2" in coverage
    index = json.loads((out / "api" / "errors" / "index.json").read_text())
    assert {entry["id"] for entry in index["entries"]} == {"queue-full", "capacity-not-positive"}
