"""`errorkb verify` obeys the allow-list (issue 20, item 4): a check whose snippet, or a module beside
it, uses a primitive outside the list without an allowance fails, whatever it then did; with the
allowance (and its reason) it is judged as any other check."""

from __future__ import annotations

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.verify.engine import verify
from errorkb.verify.records import Code
from tests.kb import AFTER, BEFORE, VALID_ENTRY, make_project

HIDDEN_EXEC = 'run = getattr(__builtins__, "exec")\nrun("pass")\n' + AFTER
ALLOWED = VALID_ENTRY.format(id="demo-error").replace("related: []\n", """related: []
after:
  file: after.py
  allow:
    - {primitive: builtins, reason: a test of the allow-list}
    - {primitive: exec, reason: a test of the allow-list}
""")

# Every check of this module runs in the lean interpreter (tests/lean.py): its snippets use no optional
# backend, and each zygote then loads torch and the bundled cache without hqq's torch._dynamo.
pytestmark = pytest.mark.usefixtures("lean_checks")


def verdicts(root, kinds=("after",)):
    project = load_project(root)
    loaded = load_project_entries(project)
    assert loaded.problems == [], [str(problem) for problem in loaded.problems]
    report = verify(project, loaded.entries, targets=["bundled"], devices=["cpu"], kinds=list(kinds), jobs=1)
    return {record.role: record for record in report.checks}


@pytest.mark.parametrize("where", ["snippet", "helper"])
def test_a_primitive_without_an_allowance_fails_the_check(tmp_path, where):
    after = HIDDEN_EXEC if where == "snippet" else "from lib import helper\n" + AFTER
    root = make_project(tmp_path, snippets={"demo-error": {"before.py": BEFORE, "after.py": after, "guard.py": AFTER}})
    if where == "helper":
        (root / "snippets" / "demo-error" / "lib").mkdir()
        (root / "snippets" / "demo-error" / "lib" / "helper.py").write_text('import pickle\n')
    record = verdicts(root)["after"]
    assert (record.outcome, record.code) == ("fail", Code.UNALLOWED), record.reason
    expected = "snippets/demo-error/after.py:1: exec" if where == "snippet" else \
        "snippets/demo-error/lib/helper.py:1: pickle (import pickle)"
    assert expected in record.reason


def test_with_its_allowance_the_check_is_judged_as_any_other(tmp_path):
    root = make_project(tmp_path, {"demo-error.yml": ALLOWED},
                        {"demo-error": {"before.py": BEFORE, "after.py": HIDDEN_EXEC, "guard.py": AFTER}})
    record = verdicts(root)["after"]
    assert record.outcome == "pass", record.reason
    entry = load_project_entries(load_project(root)).entries[0].entry
    from errorkb.core.snippets import AFTER as AFTER_ROLE

    assert [(allowed.primitive, allowed.reason) for allowed in entry.allowances(AFTER_ROLE)] == \
        [("builtins", "a test of the allow-list"), ("exec", "a test of the allow-list")]
