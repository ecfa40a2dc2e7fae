"""Round nineteen (red20): what the judge reads of the outcome that the snippet's own objects say of themselves.

A guard that stops a bad call "raises its own ValueError": the judge read the class of the exception that reached
the top from the harness's description of it (`child.describe`), which takes a class's `__module__` as the class
says it (a snippet's `class ValueError(Exception): __module__ = "builtins"` described itself as
`builtins.ValueError`), so a look-alike passed where "raises ValueError" means Python's own class, by identity, as it
does for the documented error (`test_judge_exception_type.py`). The class of the exception that reached the top is
now named by the observer, at the end, by identity (`_p_qualified`), whatever the class claims; the honest twin, a
guard raising Python's own ValueError, still passes.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errorkb.cli import main
from tests.kb import importable
from tests.verify.verifykb import allowing

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tinylib_kb"
ENTRY = "capacity-not-positive"
HONEST_GUARD = (FIXTURE / "snippets" / ENTRY / "guard_validate.py").read_text()
LOOK_ALIKES = {
    # a class of the snippet's named ValueError, claiming Python's own module
    "claims-builtins": "class ValueError(Exception):  # noqa: A001\n    __module__ = 'builtins'\n\n\n",
    # the same, its name set after it was made (the class statement names it otherwise)
    "renamed": ("class Refused(Exception):\n    pass\n\n\nRefused.__name__ = Refused.__qualname__ = 'ValueError'\n"
                "Refused.__module__ = 'builtins'\nValueError = Refused  # noqa: A001\n\n\n"),
}


@pytest.fixture
def tinylib(tmp_path, monkeypatch) -> Path:
    root = shutil.copytree(FIXTURE, tmp_path / "kb")
    importable(monkeypatch, root / "upstream", root / "bundled")
    return root


def _verify_guard(root: Path, guard: str, capsys) -> list[dict]:
    (root / "snippets" / ENTRY / "guard_validate.py").write_text(guard)
    entry = root / "docs" / "errors" / "tinyq" / f"{ENTRY}.yml"
    entry.write_text(allowing(entry.read_text(), guard, modules=("tinyq",)))
    main(["--root", str(root), "verify", ENTRY, "--no-cache", "--snippet", "guard", "--report", str(root / "r.json")])
    printed = capsys.readouterr()
    assert (root / "r.json").is_file(), printed.out + printed.err
    checks = json.loads((root / "r.json").read_text())["checks"]
    assert {check["target"] for check in checks} == {"bundled", "upstream"}, checks
    return checks


@pytest.mark.parametrize("how", sorted(LOOK_ALIKES))
def test_a_guards_own_exception_is_pythons_class_by_identity_not_by_its_claim(tinylib, capsys, how):
    """The guard raises a class of its own named ValueError that says it is Python's. Before: passed ("stopped the
    call early with its own ValueError")."""
    for check in _verify_guard(tinylib, LOOK_ALIKES[how] + HONEST_GUARD, capsys):
        assert (check["outcome"], check["code"]) == ("fail", "wrong-exception"), check
        assert "a class named ValueError that is not the ValueError it names" in check["reason"], check["reason"]


def test_a_guard_raising_pythons_own_valueerror_still_passes(tinylib, capsys):
    """The twin: the fixture's own guard, raising Python's ValueError."""
    for check in _verify_guard(tinylib, HONEST_GUARD, capsys):
        assert (check["outcome"], check["code"]) == ("pass", "stopped-early"), check
