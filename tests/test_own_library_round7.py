"""A seventh round of a newcomer's own library: what plain `errorkb check` tells, a fifth library end to end, and an
author's first hour for a library that is one module or a namespace package.

1. A pinned function that raises on every call (click's `Context.fail`) was said only by `check --drift`, which
   authors rarely run; plain `errorkb check` (what they run) says it too: the warning reads one function's lines
   of the pinned file, not a parse of the library (benchmarks/check_failers.py prints the cost side by side).
"""

from __future__ import annotations

from errorkb.cli import main
from tests.test_own_library_round6 import FAILS_ON_PURPOSE, _click, _filled


def test_plain_check_warns_of_a_pin_that_raises_on_every_call(tmp_path, capsys):
    root, written = _click(tmp_path, capsys)
    _filled(written, written.read_text())
    (root / "snippets" / "extra-argument" / "after.py").write_text(FAILS_ON_PURPOSE)
    assert main(["--root", str(root), "check"]) == 0  # warnings: the entry loads
    said = capsys.readouterr().err
    assert "warning: Context.fail raises UsageError on every call" in said, said
    assert "after.py:6:9: warning: calls `ctx.fail(...)`" in said, said


def test_plain_check_of_one_entry_warns_of_that_entry_only(tmp_path, capsys):
    root, written = _click(tmp_path, capsys)
    _filled(written, written.read_text())
    assert main(["--root", str(root), "check", "extra-argument"]) == 0
    assert "warning: Context.fail raises UsageError on every call" in capsys.readouterr().err
