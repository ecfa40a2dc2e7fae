"""Over-broad `ties` are refused where they are written: a tie confirms an entry on a value alone, so a glob
that every value fits (no literal part) or that every class the library defines fits would confirm the
entry on any class the message names: a confirmed wrong answer waiting for its paste."""

from __future__ import annotations

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.lookup import Known, lint
from errorkb.lookup._index import Index
from tests.kb import VALID_ENTRY, make_project

MESSAGE = "'{cls}' object has no attribute 'generate'"
BEFORE = ("Traceback (most recent call last):\n  File \"/u/mine.py\", line 3, in <module>\n    model.generate()\n"
          "AttributeError: 'RemoteForCausalLM' object has no attribute 'generate'\n")


def entry_text(glob: str) -> str:
    text = VALID_ENTRY.format(id="demo-error").replace("exception: ValueError", "exception: AttributeError")
    text = "\n".join(f'message: "{MESSAGE}"' if line.startswith("message:") else line for line in text.split("\n"))
    return text + ("diagnosis:\n  placeholders:\n    cls:\n      type: class\n      ties:\n"
                   f"        - names: ['{glob}']\n          because: names a remote model\n")


@pytest.mark.parametrize("glob", ["*", "**"])
def test_a_ties_glob_with_no_literal_part_is_refused_at_its_line(tmp_path, glob):
    text = entry_text(glob)
    project = load_project(make_project(tmp_path, entries={"demo-error.yml": text}))
    found = [str(one) for one in load_project_entries(project).problems]
    line = text.split("\n").index(f"        - names: ['{glob}']") + 1
    assert len(found) == 1, found
    assert found[0].startswith(f"docs/errors/transformers/demo-error.yml:{line}:"), found
    assert "no literal part" in found[0] and "*ForCausalLM" in found[0], found


def test_a_ties_glob_with_a_literal_part_loads(tmp_path):
    project = load_project(make_project(tmp_path, entries={"demo-error.yml": entry_text("*ForCausalLM")}))
    assert load_project_entries(project).problems == []


def known(*globs: str) -> Known:
    return Known.from_index({"id": "remote", "title": "t", "exception": "AttributeError", "message": MESSAGE,
                             "wordings": [{"message": MESSAGE}],
                             "diagnosis": {"placeholders": {"cls": {"type": "class", "ties": [
                                 {"names": list(globs), "because": "names a remote model"}]}}}})


CLASSES = frozenset({"RemoteForCausalLM", "LlamaForCausalLM", "DynamicCache"})


def test_a_ties_glob_every_class_of_the_library_fits_is_reported_at_the_glob():
    found = lint.check(Index([known("*ForCausalLM", "*a*")], items={"remote": {}}),
                       [lint.Case("remote", "5.15.1", BEFORE)], classes=CLASSES)
    assert [(one.entry, one.key) for one in found] == [
        ("remote", ("diagnosis", "placeholders", "cls", "ties", 0, "names", 1))], found
    assert "every class the library defines" in found[0].message and "*ForCausalLM" in found[0].message


def test_a_ties_glob_some_classes_of_the_library_do_not_fit_passes():
    assert lint.check(Index([known("*ForCausalLM")], items={"remote": {}}),
                      [lint.Case("remote", "5.15.1", BEFORE)], classes=CLASSES) == []
    # no class list (the library is not installed): nothing to hold the glob to, nothing reported
    assert lint.check(Index([known("*a*")], items={"remote": {}}),
                      [lint.Case("remote", "5.15.1", BEFORE)], classes=frozenset()) == []


def test_errorkb_check_names_the_over_broad_glob_s_line(tmp_path, monkeypatch):
    from errorkb import cli
    from errorkb.site import hookindex

    text = entry_text("*Causal*")
    project = load_project(make_project(tmp_path, entries={"demo-error.yml": text}))
    result = load_project_entries(project)
    assert result.problems == []
    monkeypatch.setattr(hookindex, "diagnosis_cases", lambda *_: [lint.Case("demo-error", "5.15.1", BEFORE)])
    monkeypatch.setattr(lint, "library_class_names", lambda _name: frozenset({"RemoteForCausalLM",
                                                                               "LlamaForCausalLM"}))
    # (the fake before, without the library's frame, is reported too: only the glob's finding is this test's)
    found = [str(one) for one in cli._diagnosis_problems(project, result) if "every class" in str(one)]
    line = text.split("\n").index("        - names: ['*Causal*']") + 1
    assert len(found) == 1 and found[0].startswith(f"docs/errors/transformers/demo-error.yml:{line}:"), found
    assert "ties[0].names[0] ('*Causal*') fits every class the library defines" in found[0], found
