"""Hostile input, round twenty-two: the loader, the reports and the site stage, bounded and lossless.

- the gap round twenty-one left in `errorkb check`'s record of pages that rendered within budget
  (errorkb.site.rehearsed): a file saved and saved back between a rehearsal child's import of it and its first look
  at it. The child imported one code, digested another, and the record said the pages passed with the second;
- (the escapes, each filter in each place a template writes it: tests/site/test_inert_round22.py.)
"""

from __future__ import annotations

import os
from pathlib import Path

from errorkb.site import budget
from tests.site.test_rehearsed import REFUSING_HELPER, check, local_code, rendered  # noqa: F401 (a fixture)


def test_code_saved_and_saved_back_while_a_child_imports_it_is_never_recorded_as_what_rendered(
        tmp_path: Path, rendered, monkeypatch, capsys):  # noqa: F811
    """The helper on disk refuses a page (`REFUSING_HELPER`); the child imported a version that passed it, saved
    over it before the child first looked at the file (the module does it itself as it is imported: the same
    moment, every time). The child's look, the parent's before and after all read the refusing code, so the
    pages were recorded as passing with it, and the next run skipped them."""
    root = local_code(tmp_path, monkeypatch)
    counting = budget.rehearse  # one child: the one that imports the version saved over
    monkeypatch.setattr(budget, "rehearse", lambda pages, config, **options: counting(pages, config,
                                                                                       **{**options, "jobs": 1}))
    helper = tmp_path / "code" / "localhelper.py"
    helper.write_text("import os, pathlib\n"
                      f"if os.getpid() != {os.getpid()}:  # in the child: saved back once imported\n"
                      f"    pathlib.Path(__file__).write_text({REFUSING_HELPER!r})\n"
                      "def verdict(text):\n    return None\n")
    assert check(root) == 0  # rendered by the passing code, which the child imported: right
    assert helper.read_text() == REFUSING_HELPER
    rendered.clear()
    capsys.readouterr()
    assert check(root) == 1, "pages were taken from a record keyed on code that never rendered them"
    assert "the new code refuses it" in capsys.readouterr().err
    assert rendered, "nothing rendered again"
