"""A fifth round of a newcomer's own library: messages the library finishes away from the `raise`.

1. pydantic's `PydanticUserError` (and every `PydanticErrorMixin` error) makes its text in `__str__`: the raise's
   words, a blank line, then "For further information visit https://errors.pydantic.dev/<release>/u/<code>"
   (Miksus/red-bird#51 and scuervo91/dcapy#25 quote this one's first line). `new` dropped the appended line, so the before failed "message differs" at
   the end of the message; an author who wrote the line in had the drift check fail it ("message differs"), since
   the raise's literal holds no such line. Either way the entry could not both verify and hold its pin.
2. click formats the user's value into a literal up the stack (`ctx.fail(ngettext("Got unexpected extra argument
   ({args})", ...).format(args=...))`, then `Context.fail` raises `UsageError(message, self)`; playbox-dev/trackstudio#1
   and pallets/click#3000 show the wording): `new` drafted the user's value as a literal, and the drift check read the raise's
   variable as no message at all ("found: None").

The tracebacks are the libraries' own: the tests run them; no message is written by hand.
"""

from __future__ import annotations

import json

import pytest
import yaml

from errorkb.cli import main
from errorkb.source.drift import same_message
from tests.verify.verifykb import drafted_from_crash

SHOW = "# --8<-- [start:show]\n{}\n# --8<-- [end:show]\n"
CONST = "from pydantic import Field\n\nField(const=1)\n"
FIXED = "from pydantic import Field\n\n" + SHOW.format("print(Field(default=1))")


def _filled(written, text: str, message: str | None = None) -> None:
    text = text.replace("TODO: ", "Filled: ").replace('"TODO"', '"Filled"')
    if message is not None:
        text = "\n".join(line if not line.startswith("message:") else f"message: {json.dumps(message)}"
                         for line in text.splitlines()) + "\n"
    written.write_text(text)


def _pydantic(tmp_path, capsys):
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "pydantic", "--source-root", "", "--tag-format", "v{release}"]) == 0
    printed, written, text = drafted_from_crash(root, tmp_path, "const-removed", CONST)
    assert "\n\nFor further information visit https://errors.pydantic.dev/" in printed, printed
    snippets = root / "snippets" / "const-removed"
    (snippets / "before.py").write_text("from pydantic import Field\n\n" + SHOW.format("Field(const=1)"))
    (snippets / "after.py").write_text(FIXED)
    (snippets / "guard_validate.py").write_text(FIXED)
    capsys.readouterr()
    return root, written, text


def test_new_keeps_the_line_the_exception_appends_and_the_pin_and_the_before_both_hold(tmp_path, capsys):
    root, written, text = _pydantic(tmp_path, capsys)
    message = yaml.safe_load(text)["message"]
    head, _, appended = message.partition("\n\n")
    assert head == "`const` is removed, use `Literal` instead", message
    assert appended.startswith("For further information visit https://errors.pydantic.dev/"), message
    assert appended.endswith("/u/removed-kwargs") and "{" in appended, message  # the release's part varies
    _filled(written, text)
    assert main(["--root", str(root), "check", "--drift"]) == 0, capsys.readouterr()
    main(["--root", str(root), "verify", "--no-cache", "--sandbox", "require"])
    shown = capsys.readouterr().out
    report = json.loads((root / "reports" / "latest.json").read_text())
    assert report["summary"] == {**report["summary"], "pass": 3, "fail": 0}, shown


def test_drift_still_fails_a_reworded_raise_whose_message_the_exception_goes_on_after(tmp_path, capsys):
    root, written, text = _pydantic(tmp_path, capsys)
    _filled(written, text.replace("`const` is removed", "`const` was removed"))
    assert main(["--root", str(root), "check", "--drift"]) == 1
    assert "message differs at line" in capsys.readouterr().err


def test_only_a_library_exception_goes_on_after_the_raise_words():
    """Python's own exceptions show exactly their argument: a line after it is no message they make."""
    raised = "`const` is removed, use `Literal` instead"
    more = f"{raised}\n\nFor further information visit https://errors.pydantic.dev/{{n}}/u/removed-kwargs"
    assert same_message(raised, "PydanticUserError", more)
    assert not same_message(raised, "ValueError", more)
    assert not same_message(raised, "PydanticUserError", raised + " and more")  # not a line of its own
    assert not same_message(raised, "PydanticUserError", "`const` was removed\n\nFor further information")


def test_verify_says_what_the_exception_appended_when_the_entry_stops_short(tmp_path, capsys):
    """The entry without the appended line: the before fails (the message differs), and the failure says the
    library's exception added lines after the documented words and what to do, instead of only a caret."""
    root, written, text = _pydantic(tmp_path, capsys)
    _filled(written, text, message="`const` is removed, use `Literal` instead")
    main(["--root", str(root), "verify", "--no-cache", "--sandbox", "require"])
    shown = capsys.readouterr().out
    assert "FAIL const-removed::before" in shown and "goes on after the documented words" in shown, shown


CLICK = ('import click\n\n\n@click.command()\ndef hello():\n    print("hi")\n\n\n'
         + SHOW.format('hello(["extra"], standalone_mode=False)'))


def _click(tmp_path, capsys):
    root = tmp_path / "kb"
    assert main(["init", str(root), "--library", "click"]) == 0, capsys.readouterr()
    printed, written, text = drafted_from_crash(root, tmp_path, "extra-argument", CLICK)
    assert "UsageError: Got unexpected extra argument (extra)" in printed, printed
    capsys.readouterr()
    return root, written, text


def test_new_drafts_the_placeholder_where_the_library_formats_the_users_value_in(tmp_path, capsys):
    root, written, text = _click(tmp_path, capsys)
    entry = yaml.safe_load(text)
    assert entry["message"] == "Got unexpected extra argument ({args})", entry
    assert entry["source"]["function"] == "Context.fail" and entry["expect"]["placeholders"] == {"args": "extra"}
    _filled(written, text)
    assert main(["--root", str(root), "check", "--drift"]) == 0, capsys.readouterr()


def test_click_a_before_of_a_usage_error_passes(tmp_path, capsys):
    root, written, text = _click(tmp_path, capsys)
    _filled(written, text)
    (root / "snippets" / "extra-argument" / "before.py").write_text(CLICK)
    main(["--root", str(root), "verify", "extra-argument", "--snippet", "before", "--no-cache", "--sandbox",
          "require"])
    report = json.loads((root / "reports" / "latest.json").read_text())
    (before,) = [check for check in report["checks"] if check["id"].startswith("extra-argument::before")]
    assert before["outcome"] == "pass", before


@pytest.mark.parametrize("wording", ["Got an unexpected extra argument ({args})", "Got unexpected extra parameter ({args})"])
def test_drift_reads_the_literal_the_library_formats_for_a_raise_of_a_message_made_up_the_stack(
        tmp_path, capsys, wording):
    root, written, text = _click(tmp_path, capsys)
    _filled(written, text, message=wording)
    assert main(["--root", str(root), "check", "--drift"]) == 1
    said = capsys.readouterr().err
    assert "found:    None" not in said and "Got unexpected extra argument ({args})" in said, said
