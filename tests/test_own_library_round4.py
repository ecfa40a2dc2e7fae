"""A fourth round of a newcomer's own library: a message that goes over several lines, whose first line is a
header every error of the class starts with.

pydantic's `ValidationError` reads `1 validation error for int`, then the lines that say what failed
(pydantic/pydantic#9227 quotes one through `BaseModel.__init__`). `errorkb new` kept the first line only: the
entry's message was the header, and the lookup confirmed any `ValidationError` of that model as this entry, a
confirmed wrong answer. The tracebacks are the library's own: the test runs it; no message is written by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from errorkb.cli import main

PARSING = 'from pydantic import TypeAdapter\n\nTypeAdapter(int).validate_python("abc")\n'
WRONG_TYPE = 'from pydantic import TypeAdapter\n\nTypeAdapter(int).validate_python([1])\n'


def _traceback(tmp_path, name: str, code: str) -> str:
    script = tmp_path / f"{name}.py"
    script.write_text(code)
    crashed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "ValidationError: 1 validation error for int\n" in crashed.stderr, crashed.stderr
    (tmp_path / f"{name}.txt").write_text(crashed.stderr)
    return str(tmp_path / f"{name}.txt")


def _drafted(tmp_path, capsys):
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "pydantic", "--source-root", "", "--tag-format", "v{release}"]) == 0
    pasted = _traceback(tmp_path, "parsing", PARSING)
    assert main(["--root", str(root), "new", "int-parsing", "--from-traceback", pasted]) == 0, capsys.readouterr()
    (written,) = (root / "docs" / "errors").glob("*/int-parsing.yml")
    capsys.readouterr()
    return root, written


def test_new_keeps_the_lines_after_a_header_and_says_why(tmp_path, capsys):
    root, written = _drafted(tmp_path, capsys)
    text = written.read_text()
    message = yaml.safe_load(text)["message"]
    assert message.splitlines()[0].endswith("validation error for int"), message
    assert "Input should be a valid integer, unable to parse string as an integer [type=int_parsing" in message
    comment = [line for line in text.splitlines() if line.startswith("#") and "header" in line]
    assert comment and "goes over 3 lines" in comment[0], text
    assert main(["--root", str(root), "check"]) == 0  # the draft loads



MARKED = ('Traceback (most recent call last):\n  File "/home/me/load.py", line 2, in <module>\n'
          '    yaml.safe_load("a: !foo x")\n'
          '  File "/venv/lib/python3.11/site-packages/yaml/constructor.py", line 430, in construct_undefined\n'
          '    raise ConstructorError(None, None,\n'
          "yaml.constructor.ConstructorError: could not determine a constructor for the tag '!foo'\n"
          '  in "<unicode string>", line 1, column 4:\n    a: !foo x\n       ^\n')


def test_the_lines_a_message_goes_on_over_end_at_a_blank_or_unindented_name_line():
    """An indented `name: text` line (a mark quoting the YAML document, yaml/pyyaml#830's form) is the message's;
    a log line after the traceback, unindented, is not."""
    from errorkb.author.paste import read_paste

    for after in ("", "INFO: shutting down\n", "\nmore: text\n"):
        pasted = read_paste(MARKED + after)
        assert pasted.message == "could not determine a constructor for the tag '!foo'"
        assert pasted.whole == MARKED[MARKED.index("could not"):].rstrip(), (after, pasted.whole)



def test_the_lookup_never_confirms_another_error_of_the_class_as_the_entry(tmp_path, capsys):
    root, written = _drafted(tmp_path, capsys)
    at = ["--root", str(root)]
    other = _traceback(tmp_path, "wrong_type", WRONG_TYPE)  # same header, another error: int_type, not int_parsing
    capsys.readouterr()
    main([*at, "lookup", other])
    said = capsys.readouterr().out
    assert "int-parsing  [confirmed]" not in said, said
    main([*at, "lookup", str(tmp_path / "parsing.txt")])
    assert "int-parsing  [confirmed]" in capsys.readouterr().out


ADAPTER = "from pydantic import TypeAdapter\n\n# --8<-- [start:show]\n{call}\n# --8<-- [end:show]\n"


def test_verify_lists_the_note_and_never_asks_to_edit_what_it_could_not_read(tmp_path, capsys):
    """`verify ID` lists what is still missing: the header note, and, for a before whose message a compiled
    `__str__` makes (never observed), the verifier's own limit in output.UNREAD's words, not 'does not raise as
    documented yet', which sent the author to edit an entry no edit makes pass."""
    from errorkb.verify.output import UNREAD

    root, written = _drafted(tmp_path, capsys)
    snippets = root / "snippets" / "int-parsing"
    (snippets / "before.py").write_text(ADAPTER.format(call='TypeAdapter(int).validate_python("abc")'))
    for name in ("after.py", "guard_validate.py"):
        (snippets / name).write_text(ADAPTER.format(call='print(TypeAdapter(int).validate_python("12"))'))
    main(["--root", str(root), "verify", "int-parsing", "--no-cache", "--sandbox", "require"])
    shown = capsys.readouterr().out
    missing = shown[shown.index("still missing for int-parsing, in order:"):]
    assert "goes over 3 lines" in missing, missing
    (before,) = [line for line in missing.splitlines() if "before.py" in line and "[upstream-" in line]
    assert "does not raise as documented yet" not in before and UNREAD in " ".join(missing.split()), missing



# A fourth library from docs/own-library.md alone: click, whose errors reach the user's code through the command
# function click calls (pythonpune/readit#27: `TypeError: main() got an unexpected keyword argument 'view'`, an
# option whose parameter is named otherwise) and through its context stack (click-contrib/sphinx-click#139:
# `RuntimeError: There is no active click context.`).
SHOW = "# --8<-- [start:show]\n{}\n# --8<-- [end:show]\n"
COMMAND = ('import click\n\n\n@click.command()\n@click.option("--view", "-v", is_flag=True)\ndef main({}):\n'
           '    print({})\n\n\n')
RUN = 'main(["--view"], standalone_mode=False)'


def _click_kb(tmp_path, capsys, entry_id: str, crash: str, before: str, after: str):
    root = tmp_path / "kb"
    if not root.exists():
        assert main(["init", str(root), "--library", "click"]) == 0, capsys.readouterr()
    script = tmp_path / f"{entry_id}.py"
    script.write_text(crash)
    crashed = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert "Error: " in crashed.stderr and "site-packages/click/" in crashed.stderr, crashed.stderr
    (tmp_path / f"{entry_id}.txt").write_text(crashed.stderr)
    assert main(["--root", str(root), "new", entry_id, "--from-traceback", str(tmp_path / f"{entry_id}.txt")]) == 0
    (written,) = (root / "docs" / "errors").glob(f"*/{entry_id}.yml")
    text = "\n".join(line for line in written.read_text().splitlines() if not line.lstrip().startswith("#")) + "\n"
    written.write_text(text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"'))
    snippets = root / "snippets" / entry_id
    (snippets / "before.py").write_text(f'"""Filled."""\n\n{before}')
    (snippets / "after.py").write_text(f'"""Filled."""\n\n{after}')
    (snippets / "guard_validate.py").write_text(f'"""Filled."""\n\n{after}')
    capsys.readouterr()
    return root, written


def test_click_a_callback_the_library_calls_is_declared_and_every_command_works(tmp_path, capsys):
    """The after runs the user's command function inside `Context.invoke`, the documented call: verify fails it,
    naming `allow: callback` (docs/own-library.md says so), until the entry declares it; then all three pass,
    in the sandbox, and the lookup confirms the library's own traceback."""
    root, written = _click_kb(tmp_path, capsys, "option-parameter-name", COMMAND.format("show", "show") + RUN,
                              COMMAND.format("show", "show") + SHOW.format(RUN),
                              COMMAND.format("view", "view") + SHOW.format(RUN))
    at = ["--root", str(root)]
    entry = yaml.safe_load(written.read_text())
    assert (entry["source"]["function"], entry["source"].get("implicit")) == ("Context.invoke", True), entry
    assert main([*at, "check", "--drift"]) == 0, capsys.readouterr()
    assert main([*at, "verify", "--no-cache", "--sandbox", "require"]) == 1
    assert "allow: callback" in capsys.readouterr().out
    written.write_text(written.read_text() + "allow:\n  - primitive: callback\n    reason: \"click calls the "
                                             "command function the user wrote: that is the documented call\"\n")
    assert main([*at, "verify", "--no-cache", "--sandbox", "require"]) == 0, capsys.readouterr().out
    assert main([*at, "hook", "index"]) == 0
    capsys.readouterr()
    assert main([*at, "lookup", str(tmp_path / "option-parameter-name.txt")]) == 0
    assert "option-parameter-name  [confirmed]" in capsys.readouterr().out


def test_click_the_context_stack_error_verifies(tmp_path, capsys):
    """click keeps its context stack on a module-level `threading.local`, whose per-thread callback (C, bound to a
    weak reference) C code makes as click first reads it: a weak reference raises nothing when called, so it is no
    planted code (red27, round twenty-three). Before, after and guard pass; on main all three failed, planted."""
    call = "import click\n\n" + SHOW.format("click.get_current_context()")
    root, _ = _click_kb(tmp_path, capsys, "no-active-context", call, call,
                        "import click\n\n" + SHOW.format("print(click.get_current_context(silent=True))"))
    main(["--root", str(root), "verify", "--no-cache", "--sandbox", "require"])
    report = json.loads((root / "reports" / "latest.json").read_text())
    shown = capsys.readouterr().out
    assert report["summary"] == {**report["summary"], "pass": 3, "fail": 0}, shown


def test_a_message_longer_than_new_takes_keeps_whole_lines_and_a_placeholder_for_the_rest():
    """A validation error of many fields runs over thousands of characters: new keeps the lines that fit (never
    cutting one), and a {more} placeholder matches the rest, so the draft still matches the message it came from."""
    from errorkb.author.paste import read_paste
    from errorkb.author.scaffold import MAX_MESSAGE, Draft, _note_lines, _whole_message
    from errorkb.core.message import MessageTemplate

    details = "".join(f"field_{i}\n  Input should be a valid integer [type=int_type, input_value=[{i}]]\n"
                      for i in range(100))
    pasted = read_paste(f"pydantic_core._pydantic_core.ValidationError: 100 validation errors for M\n{details}")
    message, cut = _whole_message(pasted)
    assert cut > 0 and len(message) <= MAX_MESSAGE and pasted.whole.startswith(message + "\n"), (cut, len(message))
    draft = Draft(id="x", library="pydantic/pydantic", exception="ValidationError", message=message)
    _note_lines(draft, message, cut)
    assert draft.message.endswith("\n{more}") and f"all kept but the last {cut}" in draft.message_todo[0]
    assert MessageTemplate.parse(draft.message.replace("{", "{{").replace("}", "}}").replace("{{more}}", "{more}")
                                 ).match(pasted.whole) is not None
