"""A second library's knowledge base goes through every command with no code change, only its
profile: tests/fixtures/tinylib_kb documents `tinyq`, a tiny pure-Python queue, with its own
bundled and "upstream" implementations, on the plain `python` runtime."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import importable

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "tinylib_kb"


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    """A copy of the fixture, with its upstream package "installed" and its bundled one importable,
    in this process and in every check's process."""
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    importable(monkeypatch, root / "upstream", root / "bundled")
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
    # The installed library's frames print from its package folder wherever this machine installed it (here a
    # folder on the path, not site-packages): readers tell the library's own frames by that (the lookup's rules).
    assert before["exception"]["raise_site"]["file"] == "tinyq/queue.py"
    assert 'File "tinyq/queue.py", line' in before["exception"]["traceback"]


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
    coverage = (out / "coverage.md").read_text().replace("<wbr>", "")  # break points in code, not text
    assert "src/tinyq/queue.py" in coverage and "2 of 2" in coverage
    index = json.loads((out / "api" / "errors" / "index.json").read_text())
    assert {entry["id"] for entry in index["entries"]} == {"queue-full", "capacity-not-positive"}


# -- from `errorkb init`: every command, on what init writes plus the fixture's entries --------------


@pytest.fixture
def initialised(tmp_path, monkeypatch) -> Path:
    """`errorkb init` for tinyq (its metadata names no repository: given by flag), then the fixture's
    entries and snippets added, and the profile told about the bundled implementation (the fixture's,
    importable) and the followed file, as an author would."""
    importable(monkeypatch, FIXTURE / "upstream", FIXTURE / "bundled")
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "tinyq", "--repository", "example/tinyq",
                 "--tag-format", "v{release}", "--source-root", "src"]) == 0
    shutil.copytree(FIXTURE / "docs" / "errors" / "tinyq", root / "docs" / "errors" / "tinyq", dirs_exist_ok=True)
    shutil.copytree(FIXTURE / "snippets", root / "snippets", dirs_exist_ok=True)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text()
    assert 'targets = ["upstream"]' in text and 'runtime = "python"' in text
    pyproject.write_text(text.replace('targets = ["upstream"]', 'targets = ["bundled", "upstream"]')
                         .replace('runtime = "python"', 'runtime = "python"\nbundled = "tinyq_bundled"\n'
                                  'follow = ["src/tinyq/queue.py"]'))
    return root


def test_every_command_on_a_knowledge_base_started_by_init(initialised, capsys, tmp_path):
    import subprocess
    import sys

    root = str(initialised)
    assert main(["--root", root, "check"]) == 0
    assert main(["--root", root, "check", "--drift"]) == 0
    assert "2 entries OK; every source pin holds" in capsys.readouterr().out
    assert main(["--root", root, "verify", "--no-cache"]) == 0
    report = json.loads((initialised / "reports" / "latest.json").read_text())
    assert report["summary"] == {"pass": 12, "fail": 0, "not-run": 0, "not-applicable": 0}
    capsys.readouterr()
    assert main(["--root", root, "coverage", "--json"]) == 0
    (followed,) = json.loads(capsys.readouterr().out)["files"]
    assert followed["sites"] == 2 and all(row["entries"] for row in followed["rows"])

    crashed = subprocess.run([sys.executable, "-c", "from tinyq import BoundedQueue\nBoundedQueue(0)\n"],
                             capture_output=True, text=True, timeout=60)
    assert "ValueError: capacity must be positive, got 0" in crashed.stderr
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    assert main(["--root", root, "new", "capacity-zero", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    assert "capacity-zero.yml" in capsys.readouterr().out

    assert main(["--root", root, "hook", "index"]) == 0
    assert (initialised / "tinyq_errorkb" / "index.json").is_file()
    assert main(["--root", root, "show", "queue-full"]) == 0
    assert "`put` on a full queue" in capsys.readouterr().out
    assert main(["--root", root, "lookup", "OverflowError: queue is full: capacity 3"]) in (0, 3)
    assert "queue-full" in capsys.readouterr().out
    assert main(["--root", root, "render", "--out", str(tmp_path / "md")]) == 0
    page = (tmp_path / "md" / "errors" / "tinyq" / "queue-full.md").read_text()
    assert "https://github.com/example/tinyq/blob/0123456789abcdef0123456789abcdef01234567/src/tinyq/queue.py#L13" \
        in page
    from tests.site.sitekb import mkdocs_build

    built = mkdocs_build(initialised / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "errors" / "tinyq" / "queue-full" / "index.html").is_file()


def test_lookup_reads_the_traceback_file_it_is_given_as_new_does(tinylib, tmp_path, capsys, monkeypatch):
    """The author saved the traceback (`python my_script.py 2> traceback.txt`, as docs/own-library.md
    says) and gave the file to `errorkb new --from-traceback`; `errorkb lookup traceback.txt` is the next
    thing typed. Its text is matched, not the file's name as a message (which matched nothing)."""
    import subprocess
    import sys

    crashed = subprocess.run([sys.executable, "-c", "from tinyq import BoundedQueue\nBoundedQueue(0)\n"],
                             capture_output=True, text=True, timeout=60)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "traceback.txt").write_text(crashed.stderr)
    assert main(["--root", str(tinylib), "lookup", "traceback.txt"]) == 0
    printed = capsys.readouterr()
    assert "capacity-not-positive  [confirmed]" in printed.out
    assert "traceback.txt" in printed.err  # said: the file's text was matched


def test_the_profile_names_the_modules_its_snippets_import_besides_the_library(tinylib, capsys):
    """A library that extends another (a YAML tag for PyYAML, a Markdown extension) is used through its host:
    the snippet imports it as a user would. The allow-list knew only the library and the runtime, so every such
    snippet needed an `import` allowance, which allows every import. The profile names the host once
    (`imports`); a module it does not name is still flagged, by check and by verify alike."""
    after = tinylib / "snippets" / "queue-full" / "after.py"
    after.write_text("import yaml\n" + after.read_text() + "print(yaml.safe_dump(list(queue._items)))\n")
    assert main(["--root", str(tinylib), "check"]) == 1
    assert "import (import yaml)" in capsys.readouterr().err
    pyproject = tinylib / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('runtime = "python"', 'runtime = "python"\nimports = ["yaml"]'))
    assert main(["--root", str(tinylib), "check"]) == 0
    assert main(["--root", str(tinylib), "verify", "queue-full", "--no-cache", "--target", "upstream",
                 "--report", str(tinylib / "r.json")]) == 0, capsys.readouterr().out
    after.write_text("import csv\n" + after.read_text())
    assert main(["--root", str(tinylib), "check"]) == 1
    assert "import (import csv)" in capsys.readouterr().err


def test_a_guard_that_catches_the_documented_error_is_told_why_that_is_no_guard(tinylib, capsys):
    """A newcomer's first guard catches the error (`try: Version(text) except InvalidVersion: None`); the lint
    asks for a `catches-documented` allowance, and with it the check still failed, saying the guard 'let the
    documented error through', although the snippet caught it. The reason says what happened and what a guard
    is instead."""
    guard = tinylib / "snippets" / "queue-full" / "guard_drop_oldest.py"
    guard.write_text("from tinyq import BoundedQueue\n\nqueue = BoundedQueue(1)\nqueue.put('a')\n"
                     "# --8<-- [start:show]\ntry:\n    queue.put('b')\nexcept OverflowError:\n    pass\n"
                     "# --8<-- [end:show]\n")
    entry = tinylib / "docs" / "errors" / "tinyq" / "queue-full.yml"
    entry.write_text(entry.read_text().replace(
        "    file: guard_drop_oldest.py\n",
        "    file: guard_drop_oldest.py\n    allow:\n      - primitive: catches-documented\n"
        "        reason: the guard catches the queue's own error\n"))
    assert main(["--root", str(tinylib), "verify", "queue-full", "--no-cache", "--target", "upstream",
                 "--report", str(tinylib / "r.json")]) == 1
    printed = capsys.readouterr().out
    assert "let the documented OverflowError through from BoundedQueue.put" in printed
    assert "BoundedQueue.put raised it (1 of 2 calls)" in printed and "catching it afterwards is no guard" in printed


def test_verify_says_the_records_of_a_removed_entry_it_dropped(tinylib, capsys):
    """`errorkb verify` after an entry was removed: the standing report loses that entry's records, and the run
    says so on stderr with where they still are (it dropped them without a word)."""
    report = tinylib / "reports" / "latest.json"
    assert main(["--root", str(tinylib), "verify", "--no-cache", "--report", str(report)]) == 0
    capsys.readouterr()
    shutil.rmtree(tinylib / "snippets" / "capacity-not-positive")
    (tinylib / "docs" / "errors" / "tinyq" / "capacity-not-positive.yml").unlink()
    other = tinylib / "docs" / "errors" / "tinyq" / "queue-full.yml"
    other.write_text(other.read_text().replace("related: [capacity-not-positive]\n", ""))
    assert main(["--root", str(tinylib), "verify", "queue-full", "--no-cache", "--report", str(report)]) == 0
    said = capsys.readouterr().err
    assert "of an entry the knowledge base no longer has (capacity-not-positive) dropped" in said, said
    assert "git show HEAD:reports/latest.json" in said, said
    assert {c["entry"] for c in json.loads(report.read_text())["checks"]} == {"queue-full"}
