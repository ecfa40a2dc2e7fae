"""A newcomer's third library, and what the first two left: `errorkb new` from a traceback of code Python shows
no line of (`python -c`, a REPL, stdin), and `init` for a library that extends another.

Tracebacks here are the library's own: the test runs it (PyYAML's tag error, yaml/pyyaml#830) and takes the
traceback it prints; no message is written by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from errorkb.cli import main
from tests.verify.verifykb import drafted_from_crash

CALL = 'yaml.safe_load("a: !foo x")'


def _drafted(tmp_path, capsys, how: str) -> str:
    """The before.py `new` drafts for PyYAML's tag error, run the way `how` says."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "PyYAML", "--source-root", "lib"]) == 0, capsys.readouterr()
    code = f"import yaml\n{CALL}\n"
    if how == "-c":
        crashed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    elif how == "stdin":
        crashed = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True, timeout=60)
    else:
        script = tmp_path / "load_tagged.py"
        script.write_text(code)
        crashed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "ConstructorError: could not determine a constructor" in crashed.stderr, crashed.stderr
    (tmp_path / "tb.txt").write_text(crashed.stderr)
    capsys.readouterr()
    assert main(["--root", str(root), "new", "undefined-tag", "--from-traceback", str(tmp_path / "tb.txt")]) == 0
    return (root / "snippets" / "undefined-tag" / "before.py").read_text()


@pytest.mark.parametrize("how", ["-c", "stdin"])
def test_new_never_takes_a_library_line_for_the_users_code(tmp_path, capsys, how):
    """The paste's user frame (`File "<string>"`/`"<stdin>"`) shows no code: the draft says so and what to do,
    instead of the line of a library frame (`data = constructor(self, node)` from constructor.py)."""
    before = _drafted(tmp_path, capsys, how)
    shown = before.split("# --8<-- [start:show]")[1]
    assert "constructor(self, node)" not in before and "constructor.py" not in before, before
    assert "shows no code" in shown and "Write the call you ran" in shown, before


def test_new_takes_the_users_line_from_a_script(tmp_path, capsys):
    before = _drafted(tmp_path, capsys, "script")
    shown = before.split("# --8<-- [start:show]")[1]
    assert CALL in shown and "constructor(self, node)" not in before, before


ADAPTER = "from pydantic import TypeAdapter\n\n# --8<-- [start:show]\n{call}\n# --8<-- [end:show]\n"


def test_a_message_made_by_compiled_code_is_never_passed_unread_and_the_author_is_told_why(tmp_path, capsys):
    """pydantic-core raises `ValidationError` from compiled code under `TypeAdapter.validate_python` (the frame a
    traceback shows; pydantic/pydantic#9227 shows one through `BaseModel.__init__`), and its text is made by a
    compiled `__str__` the check never runs: the before fails (never a pass it did not observe), and the failure
    says it is the verifier's limit, which no edit of the entry lifts, instead of leaving the author to edit."""
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "pydantic", "--source-root", "", "--tag-format", "v{release}"]) == 0
    printed, written, text = drafted_from_crash(root, tmp_path, "int-parsing",
                                                'from pydantic import TypeAdapter\n\nTypeAdapter(int).validate_python("abc")\n')
    assert "ValidationError: 1 validation error for int" in printed, printed
    assert "function: \"TypeAdapter.validate_python\"" in text and "implicit: true" in text, text
    text = text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"')
    written.write_text("\n".join(line if not line.startswith("message:") else
                                 'message: "1 validation error for {model}"' for line in text.splitlines()) + "\n")
    snippets = root / "snippets" / "int-parsing"
    (snippets / "before.py").write_text(ADAPTER.format(call='TypeAdapter(int).validate_python("abc")'))
    for name in ("after.py", "guard_validate.py"):
        (snippets / name).write_text(ADAPTER.format(call='print(TypeAdapter(int).validate_python("12"))'))
    capsys.readouterr()
    main(["--root", str(root), "verify", "--no-cache", "--sandbox", "require"])
    shown = capsys.readouterr().out
    report = json.loads((root / "reports" / "latest.json").read_text())
    before = next(check for check in report["checks"] if check["id"].startswith("int-parsing::before"))
    assert before["outcome"] == "fail" and before["code"] == "message-differs", before
    assert "note:     the verifier's limit, not the snippet's" in shown, shown
    assert report["summary"]["pass"] == 2, report["summary"]  # the after and the guard: run and observed
