"""What a verify stores names no folder of the machine that ran it: an installed file from its `site-packages/` on (a
folder on the path: from the package's folder on, after `…/`), the project's own files relative to it. Two machines
verifying the same code store the same words, so merged shards and git diffs of reports/ do not churn, and a reader
of the JSON sees no one's folders. Only the stored words change: the judge compares what the check observed, paths
and all (`test_the_judge_compares_the_path_it_observed`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import importable

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tinylib_kb"


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    importable(monkeypatch, root / "upstream", root / "bundled")
    return root


def _report(root: Path, *args: str) -> tuple[int, dict[str, object], str]:
    out = root / "reports" / "latest.json"
    code = main(["--root", str(root), "verify", "--no-cache", "--report", str(out), *args])
    return code, json.loads(out.read_text()), out.read_text()


def test_a_failure_naming_files_stores_no_folder_of_this_machine(tinylib, capsys):
    """An ImportError's message names the library's file; the snippet's frame its own file: neither is stored with
    the folders this machine put them in (on main: the reason, `actual`, the message, the traceback's last line and
    where the exception started all held `/tmp/.../kb/...`)."""
    before = tinylib / "snippets" / "queue-full" / "before.py"
    before.write_text("from tinyq.queue import Missing  # a name the library never had\n" + before.read_text())
    code, report, text = _report(tinylib, "queue-full")
    capsys.readouterr()
    assert code == 1
    assert str(tinylib) not in text and str(tinylib.parent) not in text
    record = next(c for c in report["checks"] if c["id"] == "queue-full::before[upstream-cpu]")
    assert record["code"] == "wrong-exception", record["reason"]
    # The library is on the path as a folder (not site-packages): its file from the package's folder on.
    assert record["exception"]["message"] == "cannot import name 'Missing' from 'tinyq.queue' (…/tinyq/queue.py)"
    assert "(…/tinyq/queue.py)" in record["reason"] and "(…/tinyq/queue.py)" in record["actual"]
    assert record["exception"]["traceback"].rstrip().endswith("(…/tinyq/queue.py)")
    assert record["exception"]["started"]["file"] == "snippets/queue-full/before.py"
    bundled = next(c for c in report["checks"] if c["id"] == "queue-full::before[bundled-cpu]")
    assert bundled["exception"]["message"] == \
        "cannot import name 'Missing' from 'tinyq.queue' (tinyq_bundled/queue.py)"


def test_an_environment_and_the_project_are_unrooted_in_every_stored_text(tinylib, capsys):
    """Paths in what the snippet printed, in an exception's message and in a call's raised message: an environment's
    site-packages said from `site-packages/` on, the project's files relative to it."""
    guard = tinylib / "snippets" / "queue-full" / "guard_drop_oldest.py"
    site = "/opt/somewhere/venv/lib/python3.11/site-packages/tinyq/queue.py"
    guard.write_text(guard.read_text() + f"\nprint({str(tinylib / 'snippets')!r}, {site!r})\n"
                     f"raise RuntimeError({site!r} + ' ' + {str(tinylib / 'docs')!r})\n")
    code, report, text = _report(tinylib, "queue-full", "--target", "upstream")
    capsys.readouterr()
    assert code == 1
    assert str(tinylib) not in text and "/opt/somewhere" not in text
    record = next(c for c in report["checks"] if c["snippet"].endswith("guard_drop_oldest.py"))
    assert record["exception"]["message"] == "…/site-packages/tinyq/queue.py docs"
    assert "snippets …/site-packages/tinyq/queue.py" in record["output"]


def _path_in_message(root: Path, pinned: str) -> None:
    """The fixture's capacity error, reworded (in the library's copies and in the entry) to name the library's file,
    with the entry pinning the file's placeholder to `pinned`."""
    for queue in (root / "upstream" / "tinyq" / "queue.py", root / "bundled" / "tinyq_bundled" / "queue.py"):
        queue.write_text(queue.read_text().replace('got {capacity}")', 'got {capacity} in {__file__}")'))
    entry = root / "docs" / "errors" / "tinyq" / "capacity-not-positive.yml"
    entry.write_text(entry.read_text()
                     .replace('message: "capacity must be positive, got {capacity}"',
                              'message: "capacity must be positive, got {capacity} in {path}"')
                     .replace('    capacity: "0"', f'    capacity: "0"\n    path: {json.dumps(pinned)}'))


def test_the_judge_compares_the_path_it_observed(tinylib, capsys):
    """The placeholder pinned to the absolute path the library's message holds: the before passes (the judge read the
    observed message), and the stored message says the file without this machine's folders."""
    observed = str(tinylib / "upstream" / "tinyq" / "queue.py")
    _path_in_message(tinylib, observed)
    code, report, text = _report(tinylib, "capacity-not-positive", "--target", "upstream")
    printed = capsys.readouterr().out
    record = next(c for c in report["checks"] if c["id"] == "capacity-not-positive::before[upstream-cpu]")
    assert (record["outcome"], record["code"]) == ("pass", "raised-as-documented"), printed
    assert record["exception"]["message"] == "capacity must be positive, got 0 in …/tinyq/queue.py"
    # The entry's own expectation is the author's text, kept as written (`expected`); nothing else names the folder.
    assert str(tinylib) not in text.replace(json.dumps(observed)[1:-1], "")
    assert code == 0, printed


def test_the_judge_never_compares_the_stored_words(tinylib, capsys):
    """Pinned to the path as it is stored, the before fails: the placeholder the process observed is the absolute
    path, and a verdict never rests on words the verifier rewrote after judging."""
    _path_in_message(tinylib, "…/tinyq/queue.py")
    code, report, _ = _report(tinylib, "capacity-not-positive", "--target", "upstream")
    capsys.readouterr()
    record = next(c for c in report["checks"] if c["id"] == "capacity-not-positive::before[upstream-cpu]")
    assert (record["outcome"], record["code"]) == ("fail", "placeholder-differs"), record["reason"]
    assert code == 1


def test_a_verdict_from_the_cache_is_stored_unrooted_too(tinylib):
    """A cached record written before records were unrooted (or by a verifier that kept paths) enters the report as
    a run's would: `reused` is the other place a record is made public."""
    from types import SimpleNamespace

    from errorkb.core.project import load_project
    from errorkb.results.records import CheckRecord
    from errorkb.verify.engine import reused

    project = load_project(tinylib)
    queue = str(tinylib / "upstream" / "tinyq" / "queue.py")
    message = f"cannot import name 'Missing' from 'tinyq.queue' ({queue})"
    hit = CheckRecord.model_validate({
        "id": "queue-full::before[upstream-cpu]", "entry": "queue-full", "role": "before",
        "snippet": "snippets/queue-full/before.py", "target": "upstream", "device": "cpu", "outcome": "fail",
        "code": "wrong-exception", "reason": f"raised ImportError: {message}; expected OverflowError",
        "expected": "x", "verified_at": "2026-12-07T05:00:00+00:00", "output": f"{tinylib}/snippets/x\n",
        "exception": {"type": "ImportError", "message": message,
                      "started": {"where": "snippet", "type": "ImportError", "message": message,
                                  "file": str(tinylib / "snippets" / "queue-full" / "before.py")}}})
    check = SimpleNamespace(id=hit.id, entry=SimpleNamespace(id="queue-full"), role="before",
                            snippet=SimpleNamespace(path=tinylib / "snippets" / "queue-full" / "before.py"))
    stored = reused(hit, check, project, "digest")  # type: ignore[arg-type]
    assert str(tinylib) not in stored.model_dump_json(), stored.model_dump_json()
    assert stored.exception is not None and stored.exception.started is not None
    assert stored.exception.message.endswith("(…/tinyq/queue.py)") and stored.output == "snippets/x\n"
    assert stored.exception.started.file == "snippets/queue-full/before.py" and stored.cached
