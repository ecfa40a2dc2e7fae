"""tests/lean.py: the lean interpreter has everything the fixtures' snippets import but hqq, from this
environment's very files, and `lean_checks` really runs the verifier's checks in it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.kb import AFTER, BEFORE, VALID_ENTRY, make_project
from tests.lean import UNUSED_BACKENDS

NAMES = ("torch", "transformers", "transformers_errorkb", "yaml", "errorkb", *UNUSED_BACKENDS)
PROBE = ("import importlib.util, json\n"
         f"print(json.dumps({{name: getattr(importlib.util.find_spec(name), 'origin', None) for name in {NAMES!r}}}))")


def _found(python) -> dict[str, str | None]:
    return json.loads(subprocess.run([str(python), "-c", PROBE], capture_output=True, text=True, check=True).stdout)


def test_the_lean_interpreter_has_everything_but_the_unused_backends_from_the_same_files(lean_python):
    found, here = _found(lean_python), _found(sys.executable)
    assert lean_python != sys.executable, "no lean environment made: were hard links refused (another file system)?"
    assert all(found[name] is None for name in UNUSED_BACKENDS), found
    assert all(here[name] for name in UNUSED_BACKENDS), "nothing to leave out: UNUSED_BACKENDS is stale"
    assert all(found[name] for name in NAMES if name not in UNUSED_BACKENDS), found
    assert os.path.samefile(found["torch"], here["torch"])  # the same files, linked


@pytest.mark.verifier
def test_lean_checks_runs_the_verifier_s_checks_in_the_lean_interpreter(tmp_path, lean_checks):
    from errorkb.verify.engine import verify
    from tests.verify.verifykb import allowing, load_kb

    shown = "import sys\nprint('the check runs in', sys.executable, flush=True)\n" + BEFORE
    (tmp_path / "kb").mkdir()
    root = make_project(tmp_path / "kb", {"demo-error.yml": allowing(VALID_ENTRY.format(id="demo-error"), shown)},
                        {"demo-error": {"before.py": shown, "after.py": AFTER, "guard.py": AFTER}})
    project, entries = load_kb(root)
    report = verify(project, entries, targets=["bundled"], devices=["cpu"], kinds=None)
    (before,) = [record for record in report.checks if record.role == "before"]
    assert before.outcome == "pass", before.reason
    assert f"the check runs in {lean_checks}" in before.output
