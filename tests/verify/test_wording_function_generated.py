"""A wording's function that is generated code in this release is not watched, and the check goes on.

transformers 4.38 - 4.43 made `Cache` a dataclass, so `Cache.__init__` came from `<string>`; the entry
`dynamic-cache-num-hidden-layers-kwarg` names it for its 4.54 - 4.55 wording only. The rule "a watched
function is the library's code, or nothing is watched" failed every check of the entry on those
releases (`no-function`), although the main wording's function was the library's and raised as
documented. A wording whose function cannot be watched here simply cannot be the one that matched:
the main function must still be the library's code, or the check fails as before.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import importable

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tinylib_kb"
GENERATED = "\n\nfrom dataclasses import dataclass\n\n\n@dataclass\nclass Options:\n    size: int = 0\n"
WORDING = ("also_seen_as:\n  - message: \"Options.__init__() got an unexpected keyword argument 'x'\"\n"
           "    exception: TypeError\n    function: Options.__init__\n    releases: \">=2\"\nsource:")


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    for queue in (root / "upstream" / "tinyq" / "queue.py", root / "bundled" / "tinyq_bundled" / "queue.py"):
        queue.write_text(queue.read_text() + GENERATED)
    entry = root / "docs" / "errors" / "tinyq" / "queue-full.yml"
    entry.write_text(entry.read_text().replace("source:", WORDING, 1))
    importable(monkeypatch, root / "upstream", root / "bundled")
    return root


@pytest.mark.verifier
def test_a_generated_wording_function_is_not_watched_and_the_main_one_still_judges(tinylib, capsys):
    report = tinylib / "r.json"
    main(["--root", str(tinylib), "verify", "queue-full", "--no-cache", "--target", "upstream", "--report", str(report)])
    printed = "".join(capsys.readouterr())
    checks = {c["id"]: c for c in json.loads(report.read_text())["checks"]}
    before = checks["queue-full::before[upstream-cpu]"]
    assert (before["outcome"], before["code"]) == ("pass", "raised-as-documented"), (before["reason"], printed)
    assert checks["queue-full::after[upstream-cpu]"]["outcome"] == "pass", printed


@pytest.mark.verifier
def test_the_main_function_generated_here_still_fails_the_check(tinylib, capsys):
    entry = tinylib / "docs" / "errors" / "tinyq" / "queue-full.yml"
    entry.write_text(entry.read_text().replace("function: BoundedQueue.put", "function: Options.__init__"))
    report = tinylib / "r.json"
    main(["--root", str(tinylib), "verify", "queue-full", "--no-cache", "--target", "upstream", "--report", str(report)])
    checks = {c["id"]: c for c in json.loads(report.read_text())["checks"]}
    before = checks["queue-full::before[upstream-cpu]"]
    assert (before["outcome"], before["code"]) == ("fail", "no-function"), before["reason"]
    assert "is not the library's code" in before["reason"]
