"""The strict loader: every mistake an author can make is reported at its line, all at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from errorkb.cli import main
from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from tests.kb import AFTER, BEFORE, VALID_ENTRY, make_project

ENTRY_FILE = "docs/errors/transformers/demo-error.yml"


def problems_of(root, **files) -> list[str]:
    make_project(root, **files)
    return [str(p) for p in load_project_entries(load_project(root)).problems]


def with_entry(text: str) -> dict:
    return {"entries": {"demo-error.yml": text}}


def test_a_valid_entry_loads_without_problems(tmp_path):
    result = load_project_entries(load_project(make_project(tmp_path)))
    assert result.problems == []
    assert [one.entry.id for one in result.entries] == ["demo-error"]
    assert result.entries[0].entry.source.function == "Cache.early_initialization"


def test_malformed_yaml_is_located(tmp_path):
    broken = VALID_ENTRY.format(id="demo-error").replace("trigger: When it happens.", "trigger: [unclosed")
    problems = problems_of(tmp_path, **with_entry(broken))
    assert len(problems) == 1
    assert problems[0].startswith(f"{ENTRY_FILE}:14:") and "malformed YAML" in problems[0]


def test_colon_in_plain_text_gets_a_quoting_hint(tmp_path):
    broken = VALID_ENTRY.format(id="demo-error").replace("  - A situation.", "  - Export: when it happens")
    problems = problems_of(tmp_path, **with_entry(broken))
    assert any("must be quoted" in p for p in problems), problems


def test_duplicate_keys_are_errors_not_silently_merged(tmp_path):
    text = VALID_ENTRY.format(id="demo-error") + "title: A second title\n"
    problems = problems_of(tmp_path, **with_entry(text))
    last_line = text.count("\n")
    assert problems == [f"{ENTRY_FILE}:{last_line}:1: duplicate key 'title' (first set on line 2); keep one of them"]


def test_unknown_key_suggests_the_close_one(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("prevention:", "prevnetion:")
    problems = problems_of(tmp_path, **with_entry(text))
    assert f"{ENTRY_FILE}:18:1: unknown key 'prevnetion' (did you mean 'prevention'?)" in problems
    assert any("missing required key 'prevention'" in p for p in problems)


def test_unknown_nested_key_lists_allowed_keys_when_nothing_is_close(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("  line: 1471\n", "  line: 1471\n  zzz: 1\n")
    problems = problems_of(tmp_path, **with_entry(text))
    assert any(p.startswith(f"{ENTRY_FILE}:11:3: unknown key 'zzz'; allowed here: commit, path, line") for p in problems)


def test_wrong_types_name_the_field_and_what_was_found(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("line: 1471", "line: 'high'").replace(
        "tags: [early-initialization]", "tags: early-initialization")
    problems = problems_of(tmp_path, **with_entry(text))
    assert any(p.startswith(f"{ENTRY_FILE}:10:9: source.line:") for p in problems), problems
    assert any(p.startswith(f"{ENTRY_FILE}:6:7: tags:") and "a string" in p for p in problems), problems


def test_missing_required_fields_are_all_reported(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("title: A documented error\n", "").replace(
        "meaning: What it means.\n", "")
    problems = problems_of(tmp_path, **with_entry(text))
    assert f"{ENTRY_FILE}:1:1: missing required key 'title'" in problems
    assert f"{ENTRY_FILE}:1:1: missing required key 'meaning'" in problems


def test_bad_values_get_a_hint(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("a597f974857b3d92939971296bc0deb93d33d780", "a597f97485")
    problems = problems_of(tmp_path, **with_entry(text))
    assert any("source.commit" in p and "full 40-character commit hash" in p for p in problems), problems


def test_unbalanced_message_template_is_reported(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("{len(self.layers)} layers", "{len(self.layers) layers")
    problems = problems_of(tmp_path, **with_entry(text))
    assert any(p.startswith(f"{ENTRY_FILE}:5:") and "never closed" in p for p in problems), problems


@pytest.mark.parametrize("message", ["{msg}", " ", "'{cls}' object has no attribute '{name}'"])
def test_a_message_too_generic_to_identify_the_error_is_reported(tmp_path, message):
    line = next(one for one in VALID_ENTRY.splitlines() if one.startswith("message:"))
    text = VALID_ENTRY.format(id="demo-error").replace(line.replace("{{", "{").replace("}}", "}"),
                                                       f"message: {json.dumps(message)}")
    problems = problems_of(tmp_path, **with_entry(text))
    assert any(p.startswith(f"{ENTRY_FILE}:5:") and "too generic" in p for p in problems), problems


def test_missing_snippet_file_points_at_the_reference(tmp_path):
    problems = problems_of(tmp_path, snippets={"demo-error": {"before.py": BEFORE, "after.py": AFTER}})
    assert problems == [f"{ENTRY_FILE}:23:11: snippet file snippets/demo-error/guard.py does not exist; "
                        "create it or fix the name"]


def test_dangling_related_id_suggests_a_known_one(tmp_path):
    entries = {
        "demo-error.yml": VALID_ENTRY.format(id="demo-error").replace("related: []", "related: [other-eror]"),
        "other-error.yml": VALID_ENTRY.format(id="other-error"),
    }
    problems = problems_of(tmp_path, entries=entries)
    assert problems == [f"{ENTRY_FILE}:26:11: related id 'other-eror' does not match any entry "
                        "(did you mean 'other-error'?)"]


def test_duplicate_ids_across_files(tmp_path):
    entries = {"demo-error.yml": VALID_ENTRY.format(id="demo-error"),
               "zz-copy.yml": VALID_ENTRY.format(id="demo-error")}
    problems = problems_of(tmp_path, entries=entries, snippets={
        "demo-error": {"before.py": BEFORE, "after.py": AFTER, "guard.py": AFTER}})
    copy = "docs/errors/transformers/zz-copy.yml"
    assert f"{copy}:1:5: duplicate id 'demo-error' (also used by {ENTRY_FILE}:1); ids must be unique" in problems
    assert any(p.startswith(f"{copy}:1:5: id 'demo-error' differs from the file name") for p in problems)


def test_orphan_snippets_and_stray_files_are_reported_not_ignored(tmp_path):
    make_project(tmp_path)
    (tmp_path / "snippets" / "demo-error" / "guard_unused.py").write_text("pass\n")
    (tmp_path / "snippets" / "no-such-entry").mkdir()
    (tmp_path / "snippets" / "no-such-entry" / "before.py").write_text("pass\n")
    (tmp_path / "docs" / "errors" / "transformers" / "extra.yaml").write_text("id: extra\n")
    problems = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert "snippets/demo-error/guard_unused.py:1:1: not used by entry 'demo-error'; reference it " \
           "(before, after or a guard) or delete it" in problems
    assert any(p.startswith("snippets/no-such-entry/before.py:1:1: no entry has id 'no-such-entry'") for p in problems)
    assert "docs/errors/transformers/extra.yaml:1:1: not loaded as an entry: rename it to extra.yml" in problems


def test_guard_expectation_must_fit_its_outcome(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("      outcome: passes", "      outcome: raises")
    problems = problems_of(tmp_path, **with_entry(text))
    assert any("guards[0].expect" in p and "must name its 'exception'" in p for p in problems), problems


def test_check_command_prints_located_problems_and_exits_1(tmp_path, capsys):
    text = VALID_ENTRY.format(id="demo-error").replace("title:", "titel:")
    make_project(tmp_path, **with_entry(text))
    assert main(["--root", str(tmp_path), "check"]) == 1
    stderr = capsys.readouterr().err
    assert f"{ENTRY_FILE}:2:1: unknown key 'titel' (did you mean 'title'?)" in stderr
    assert "Traceback" not in stderr


def test_check_command_on_a_good_project(tmp_path, capsys):
    make_project(tmp_path)
    assert main(["--root", str(tmp_path), "check"]) == 0
    assert "1 entries OK" in capsys.readouterr().out


def test_the_real_knowledge_base_is_valid(project_root):
    result = load_project_entries(load_project(project_root))
    assert [str(p) for p in result.problems] == []
    assert len(result.entries) >= 2


def test_schema_command_prints_the_model_schema(project_root):
    printed = subprocess.run([sys.executable, "-m", "errorkb.cli", "--root", str(project_root), "schema"],
                             capture_output=True, text=True, check=True).stdout
    schema = json.loads(printed)
    assert schema["additionalProperties"] is False
    assert {"id", "message", "source", "before", "after", "guards"} <= set(schema["properties"])


@pytest.mark.parametrize("template, message, values", [
    ("length {len(x)}, has {n} layers", "length 3, has 12 layers", {"len(x)": "3", "n": "12"}),
    ("a {x} and {x}", "a 1 and 1", {"x": "1"}),
    ("literal {{braces}} {x}", "literal {braces} 5", {"x": "5"}),
    ("Expected {len(d) = } to be 4", "Expected len(d) = 5 to be 4", {"len(d) =": "len(d) = 5"}),
])
def test_message_templates_match_rendered_messages(template, message, values):
    from errorkb.core.message import MessageTemplate

    assert MessageTemplate.parse(template).match(message) == values


def test_message_templates_reject_other_messages():
    from errorkb.core.message import MessageTemplate

    template = MessageTemplate.parse("a {x} and {x}")
    assert template.match("a 1 and 2") is None
    assert template.match("a 1 and 1 extra") is None


# -- rules across fields, decided without running anything --------------------------------------


def test_a_placeholder_pin_must_name_a_placeholder_of_the_message(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace(
        "guards:", "expect:\n  placeholders:\n    len(num_head): '12'\n    batch: '2'\nguards:")
    problems = problems_of(tmp_path, **with_entry(text))
    assert problems == [
        f"{ENTRY_FILE}:22:5: expect.placeholders names '{{len(num_head)}}', which the message does not have "
        "(did you mean 'len(num_heads)'?)",
        f"{ENTRY_FILE}:23:5: expect.placeholders names '{{batch}}', which the message does not have "
        "(the message's placeholders: len(num_heads), len(self.layers))"], problems


def test_a_related_id_listed_twice_and_an_own_wording_repeated_are_problems(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace("related: []", "related: [other-error, other-error]")
    text += ("also_seen_as:\n  - message: \"`head_dim` was provided as a list of length {len(num_heads)}, "
             "but the Cache currently has {len(self.layers)} layers\"\n")
    entries = {"demo-error.yml": text, "other-error.yml": VALID_ENTRY.format(id="other-error")}
    problems = problems_of(tmp_path, entries=entries)
    assert f"{ENTRY_FILE}:26:24: related id 'other-error' is listed twice; keep one" in problems
    assert any(p.startswith(f"{ENTRY_FILE}:28:") and "is the entry's own message" in p for p in problems), problems


def test_release_facts_that_contradict_each_other(tmp_path):
    text = VALID_ENTRY.format(id="demo-error").replace(
        "guards:", "releases:\n  raises: '>=4.49'\n  last_good: '4.50.0'\n  replacement_since: '4.45.0'\nguards:")
    problems = problems_of(tmp_path, **with_entry(text))
    assert any(":22:14: releases.last_good 4.50.0 lies inside releases.raises (>=4.49)" in p for p in problems), problems
    assert any(":23:22: releases.replacement_since without releases.replacement" in p for p in problems), problems


def test_the_own_message_raised_from_another_function_is_a_wording_of_its_own(tmp_path):
    """Other releases raise the same words from another function: that wording names it, and is no repeat."""
    text = VALID_ENTRY.format(id="demo-error") + (
        "also_seen_as:\n  - message: \"`head_dim` was provided as a list of length {len(num_heads)}, "
        "but the Cache currently has {len(self.layers)} layers\"\n    function: Cache.__init__\n")
    problems = problems_of(tmp_path, **with_entry(text))
    assert not any("own message" in p for p in problems), problems


def test_resolved_resolves_as_path_resolve_does_through_symlinks_and_dot_dot(tmp_path):
    """`Resolved` resolves each folder once for the loader's checks; it must agree with
    `Path.resolve` everywhere, above all where a symlink leads out or `..` follows one."""
    from errorkb.core.load import Resolved

    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "a" / "b" / "out").symlink_to("/etc/passwd")
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "up").symlink_to(tmp_path / "a" / "b")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    paths = [tmp_path / "a" / "b" / "f", tmp_path / "link" / "f", tmp_path / "a" / "b" / "out",
             tmp_path / "a" / "b" / ".." / "b" / "f", tmp_path / "link" / ".." / "b", tmp_path / "x" / "up" / ".." / "f",
             tmp_path / "missing" / "f", tmp_path / "a" / "b" / "out" / "..", tmp_path / "loop" / "f"]
    resolved = Resolved()
    for _ in range(2):  # the second time from what it knows
        for path in paths:
            assert resolved(path) == Path(os.path.realpath(path)), path
            if "loop" not in path.parts:  # where `Path.resolve` raises (a loop) it gives what realpath gives
                assert resolved(path) == path.resolve(), path


def test_the_snippet_files_the_orphan_check_lists_are_those_rglob_finds(tmp_path):
    """`orphan_snippets` lists snippets/<folder>/*.py with `os.scandir` (on every `mkdocs serve`
    rebuild); it must find what `Path.rglob("*.py")` finds there: not inside a folder that is a
    symlink, not deeper or shallower, hidden files and folders named *.py included."""
    from errorkb.core.load import _snippet_folder_files

    snippets = tmp_path / "snippets"
    (snippets / "a" / "deeper").mkdir(parents=True)
    (snippets / "b").mkdir()
    for path in ("a/before.py", "a/.hidden.py", "a/notes.txt", "a/deeper/x.py", "b/after.py", "top.py"):
        (snippets / path).write_text("")
    (snippets / "a" / "folder.py").mkdir()
    (snippets / "a" / "Upper.PY").write_text("")
    (snippets / "linked").symlink_to(snippets / "b", target_is_directory=True)
    (snippets / "b" / "link.py").symlink_to(snippets / "a" / "before.py")
    (snippets / "b" / "dangling.py").symlink_to(tmp_path / "missing.py")
    expected = sorted((path.parent.name, path.name) for path in snippets.rglob("*.py") if path.parent.parent == snippets)
    assert _snippet_folder_files(str(snippets)) == expected
    assert ("linked", "after.py") not in expected and ("a", "folder.py") in expected  # what the case is about


# -- diagnosis.other_causes: other causes that print the entry's words on other releases --------

OTHER_CAUSES = "diagnosis:\n  other_causes:\n"


def other_cause(message: str, releases: str = "<4.40", note: str = "Another cause.") -> str:
    """One item of `OTHER_CAUSES`, three lines, its `message` last (written as a YAML double-quoted string)."""
    return f"    - releases: '{releases}'\n      note: {note}\n      message: \"{message}\"\n"


def test_an_other_cause_needs_its_releases_and_a_note_and_a_range_that_parses(tmp_path):
    text = VALID_ENTRY.format(id="demo-error") + OTHER_CAUSES + (
        "    - note: Another cause.\n"
        "    - releases: '<4.56'\n"
        "    - releases: 'soon'\n"
        "      note: Another cause.\n")
    problems = problems_of(tmp_path, **with_entry(text))
    first = text.count("\n") - 3  # the line of the first other cause
    assert problems == [
        f"{ENTRY_FILE}:{first}:7: missing required key 'releases' in 'diagnosis.other_causes.0'",
        f"{ENTRY_FILE}:{first + 1}:7: missing required key 'note' in 'diagnosis.other_causes.1'",
        f"{ENTRY_FILE}:{first + 2}:17: diagnosis.other_causes[2].releases: 'soon' is not a release range like "
        "'>=4.49,<5.0' (plain comparisons of release numbers, joined by ',' and '||')"], problems


def test_an_other_cause_names_a_wording_of_the_entry_or_a_text_one_fits(tmp_path):
    message = ("`head_dim` was provided as a list of length 3, but the Cache currently has 2 layers")
    text = VALID_ENTRY.format(id="demo-error") + OTHER_CAUSES + (
        other_cause(message, "<4.56", "A compiled forward on 4.46.") + other_cause("`head_dim` was a list"))
    problems = problems_of(tmp_path, **with_entry(text))
    last = text.count("\n")
    assert problems == [f"{ENTRY_FILE}:{last}:16: diagnosis.other_causes[1].message is no wording of the entry "
                        "(its message, an `also_seen_as`, or a text one of them fits); copy the wording the other "
                        "cause prints"], problems


def test_an_other_cause_fits_a_wording_as_the_matcher_reads_them(tmp_path):
    """One owner of "this text fits this wording" (errorkb.lookup.fits_wording): the matcher reads an other
    cause's message with typographic quotes (a forum's copy) or blanks around it as the wording it fits, so the
    loader accepts it too; a message the matcher cannot read as a wording at all (`{}`) would silently concern
    every wording, so the loader names it (at the character as written) instead of accepting it for the one it
    seems to fit."""
    text = VALID_ENTRY.format(id="demo-error") + (
        "also_seen_as:\n"
        "  - message: \"'{cls}' object has no attribute 'head_dim'\"\n"
        "    exception: AttributeError\n") + OTHER_CAUSES + (
        other_cause("\u2018DynamicCache\u2019 object has no attribute \u2018head_dim\u2019")
        + other_cause(" `head_dim` was provided as a list of length 3, but the Cache currently has 2 layers ")
        + other_cause(" `head_dim` was provided as a list of length {}, but the Cache currently has 2 layers"))
    problems = problems_of(tmp_path, **with_entry(text))
    last = text.count("\n")
    assert problems == [f"{ENTRY_FILE}:{last}:16: diagnosis.other_causes[2].message: empty placeholder {{}} at "
                        "character 46; the lookup reads it as a wording: write '{{' and '}}' for literal braces"], \
        problems


def test_an_other_cause_beside_a_wording_that_does_not_parse_is_reported_never_a_traceback(tmp_path):
    """A hostile or mistyped `also_seen_as` (`{unclosed`) beside an other cause never reaches the other causes'
    check, which parses every wording: the loader names the broken wording at its line instead."""
    text = VALID_ENTRY.format(id="demo-error") + (
        "also_seen_as:\n"
        "  - message: \"x {unclosed\"\n") + OTHER_CAUSES + other_cause("something else")
    problems = problems_of(tmp_path, **with_entry(text))
    assert problems == [f"{ENTRY_FILE}:{text.count(chr(10)) - 5}:14: also_seen_as[0].message: placeholder opened at "
                        "character 3 is never closed; write '{{' for a literal brace"], problems


# -- diagnosis.placeholders.<name>.withhold: values that print the words for another cause ------------


def test_a_withheld_value_needs_globs_of_names_and_a_reason(tmp_path):
    text = VALID_ENTRY.format(id="demo-error") + (
        "diagnosis:\n  placeholders:\n    len(num_heads):\n      type: int\n      withhold:\n"
        "        - names: ['1*']\n          because: a single head is another case\n"
        "        - names: []\n          because: nothing\n"
        "        - names: ['<script>(1)']\n          because: a name\n"
        "        - names: ['2']\n")
    problems = problems_of(tmp_path, **with_entry(text))
    last = text.count("\n")
    assert len(problems) == 3, problems
    assert problems[0].startswith(f"{ENTRY_FILE}:{last - 4}:") and "names" in problems[0], problems
    assert problems[1].startswith(f"{ENTRY_FILE}:{last - 2}:") and "names" in problems[1], problems
    assert problems[2].startswith(f"{ENTRY_FILE}:{last}:") and "because" in problems[2], problems


# -- round fourteen: plain YAML 1.1 values an entry meant otherwise ----------------------------------


@pytest.mark.parametrize("old, new, at, said", [
    ("  line: 1471\n", "  line: 1471\n  release: 4.40\n", "11:12",
     "source.release: YAML reads 4.40 as the number 4.4, not as text; quote it to keep the text: '4.40'"),
    ("tags: [early-initialization]", "tags: [1:30]", "6:8",
     "tags[0]: YAML reads 1:30 as the integer 90 (base 60), not as text; quote it to keep the text: '1:30'"),
    ("tags: [early-initialization]", "tags: [0x1F]", "6:8",
     "tags[0]: YAML reads 0x1F as the integer 31 (hexadecimal), not as text; quote it to keep the text: '0x1F'"),
    ("tags: [early-initialization]", "tags: [on]", "6:8",
     "tags[0]: YAML reads on as the boolean true, not as text; quote it to keep the text: 'on'"),
    ("title: A documented error", "title: 2026-01-01", "2:8",
     "title: YAML reads 2026-01-01 as the date 2026-01-01, not as text; quote it to keep the text: '2026-01-01'"),
])
def test_a_plain_value_yaml_reads_as_no_text_names_what_it_read_and_how_to_keep_the_text(tmp_path, old, new, at,
                                                                                        said):
    """`release: 4.40` was refused as "Input should be a valid string (got a number)": neither what YAML made of
    the author's 4.40 (4.4) nor what to write instead (quote it)."""
    text = VALID_ENTRY.format(id="demo-error").replace(old, new)
    assert problems_of(tmp_path, **with_entry(text)) == [f"{ENTRY_FILE}:{at}: {said}"]


@pytest.mark.parametrize("old, new, at, said", [
    ("  line: 1471", "  line: 02677", "10:9", "source.line: YAML 1.1 reads 02677 as the integer 1471 (octal)"),
    ("  line: 1471", "  line: 24:31", "10:9", "source.line: YAML 1.1 reads 24:31 as the integer 1471 (base 60)"),
    ("  line: 1471", "  line: 0x5bf", "10:9", "source.line: YAML 1.1 reads 0x5bf as the integer 1471 (hexadecimal)"),
    ("  line: 1471", "  line: 1_471", "10:9",
     "source.line: YAML 1.1 reads 1_471 as the integer 1471 (underscores dropped)"),
    ("  line: 1471", "  line: 1471\n  implicit: no", "11:13", "source.implicit: YAML 1.1 reads no as the boolean false"),
])
def test_a_number_or_boolean_spelled_as_only_yaml_1_1_reads_it_is_refused_with_its_plain_spelling(tmp_path, old, new,
                                                                                                  at, said):
    """`line: 02677` loaded silently as line 1471 (YAML 1.1's octal), `implicit: no` as false: a YAML 1.2 or JSON
    reader (an editor's schema check, a reviewer) reads 2677 or the text 'no'. Only the spelling every reader
    reads alike is kept; the problem says what YAML read and what to write."""
    text = VALID_ENTRY.format(id="demo-error").replace(old, new)
    problems = problems_of(tmp_path, **with_entry(text))
    plain = "false" if "implicit" in said else "1471"
    assert problems == [f"{ENTRY_FILE}:{at}: {said}; write {plain} for that value, or quote it for text"], problems


def test_a_yaml_1_2_octal_spelling_stays_text(tmp_path):
    """`0o17` is YAML 1.2's octal but plain text to YAML 1.1: the loader keeps the author's text."""
    text = VALID_ENTRY.format(id="demo-error").replace("tags: [early-initialization]", "tags: [0o17]")
    make_project(tmp_path, entries={"demo-error.yml": text})
    result = load_project_entries(load_project(tmp_path))
    assert result.problems == [] and result.entries[0].entry.tags == ["0o17"]


def test_an_id_too_long_for_the_files_named_after_it_is_refused_at_its_line(tmp_path):
    """Round fourteen: an id of 251 characters loaded (its file, `<id>.yml`, is 255 bytes), then `errorkb render`
    and the build stopped at `api/errors/<id>.json` ("File name too long"), naming no entry; Windows checkouts
    (260-character paths) failed before. The id is refused where it is written."""
    long_id = "a" + "-b" * 125
    make_project(tmp_path, entries={f"{long_id}.yml": VALID_ENTRY.format(id=long_id)},
                 snippets={long_id: {"before.py": BEFORE, "after.py": AFTER, "guard.py": AFTER}})
    problems = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert problems == [f"docs/errors/transformers/{long_id}.yml:1:5: id of 251 characters; the limit is 100 "
                        "(files, folders and addresses are named after it); choose a shorter id"], problems


@pytest.mark.parametrize("name", ["other-error.yml ", "other-error.yml.", "other-error.yaml. .", "other-error.YML "])
def test_an_entry_file_whose_name_ends_in_dots_or_spaces_is_reported_never_skipped(tmp_path, name):
    """Round fourteen: `other-error.yml.` and `other-error.yml ` were skipped without a word (their suffix is not
    `.yml`), though Windows drops the trailing dots and spaces and reads them as `other-error.yml`: the author's
    entry was on no page, and a Windows checkout could not even hold it beside the real one."""
    make_project(tmp_path)
    (tmp_path / "docs" / "errors" / "transformers" / name).write_text(VALID_ENTRY.format(id="other-error"))
    problems = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert problems == [f"docs/errors/transformers/{name}:1:1: not loaded as an entry: rename it to other-error.yml"]


@pytest.mark.parametrize("name, said", [
    ("guard.py.", "ends in a dot or a space, which Windows drops: there it is guard.py; rename it"),
    ("Guard.py", "differs from guard.py only in case: one file where case is ignored (macOS, Windows); rename one"),
    ("data.txt ", "ends in a dot or a space, which Windows drops: there it is data.txt; rename it"),
])
def test_a_snippet_folder_file_that_is_another_s_name_on_macos_or_windows_is_reported(tmp_path, name, said):
    """Round fourteen: a file no entry names (a helper, data) beside `guard.py` as `guard.py.` or `Guard.py` was
    never reported: the check on Linux saw both files, a checkout on Windows or macOS holds one of the two."""
    make_project(tmp_path)
    (tmp_path / "snippets" / "demo-error" / name).write_text(AFTER, encoding="utf-8")
    problems = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert f"snippets/demo-error/{name}:1:1: {said}" in problems, problems


# -- round fifteen: line breaks YAML reads and an editor or a review does not ------------------------------


@pytest.mark.parametrize("char, name", [("\x85", "next line"), ("\u2028", "line separator"),
                                        ("\u2029", "paragraph separator")])
def test_a_line_break_only_yaml_reads_is_refused_at_the_line_an_editor_shows(tmp_path, char, name):
    """YAML 1.1 breaks lines at NEL, LS and PS too; editors, `git diff` and a pull request's review do not. So
    `# a note<LS>allow: ...` showed a reviewer one comment and gave YAML a key (here an unknown one, said at
    line 3 of a 2-line file's count), and every later problem's line was one past the line the author sees. The
    character is refused, at the line and column an editor shows, before YAML reads anything."""
    text = VALID_ENTRY.format(id="demo-error").replace(
        "title: A documented error", f"title: A documented error  # reviewed{char}bogus: hidden")
    problems = problems_of(tmp_path, **with_entry(text))
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"{ENTRY_FILE}:2:{len('title: A documented error  # reviewed') + 1}: U+"), problems
    assert name in problems[0] and "line break" in problems[0] and "remove it" in problems[0], problems


def test_a_byte_that_is_not_utf8_after_a_line_break_only_yaml_reads_is_at_the_editor_s_line(tmp_path):
    make_project(tmp_path, entries={"demo-error.yml": "id: demo-error\n"})
    path = tmp_path / ENTRY_FILE
    path.write_bytes(b"id: demo-error # a\xe2\x80\xa8b\ntitle: \xff\n")
    problems = [str(p) for p in load_project_entries(load_project(tmp_path)).problems]
    assert f"{ENTRY_FILE}:2:8: byte 0xff is not UTF-8; save the file as UTF-8" in problems, problems
