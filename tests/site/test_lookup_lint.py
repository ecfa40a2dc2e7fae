"""`errorkb check` holds each entry's diagnosis declarations to its own verified before
(errorkb/lookup/lint.py): the traceback captured when the before raised the documented error must
be answered with the entry, confirmed, by the entry's own declarations."""

from __future__ import annotations

import json

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.lookup import Known, lint
from errorkb.lookup._index import Index
from errorkb.site.hookindex import diagnosis_cases, project_index
from tests.kb import ROOT

MESSAGE = "'{cls}' object has no attribute 'get_usable_length'"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "/u/mine.py", line 3, in <module>\n'
    "    n = cache.get_usable_length(4)\n"
    "AttributeError: 'DynamicCache' object has no attribute 'get_usable_length'\n"
)


def known(**diagnosis) -> Known:
    return Known.from_index({"id": "usable", "title": "t", "exception": "AttributeError", "message": MESSAGE,
                             "raises_in": ">=4.56", "wordings": [{"message": MESSAGE, "releases": ">=4.56"}],
                             "diagnosis": diagnosis})


def problems(entry: Known, release: str | None = "4.57.6") -> list[tuple[str, str]]:
    index = Index([entry], items={entry.id: {}})
    return lint.check(index, [lint.Case(entry.id, release, TRACEBACK)])


def test_declarations_that_confirm_the_entrys_own_before_pass():
    assert problems(known()) == []
    assert problems(known(placeholders={"cls": {"type": "class"}})) == []


def test_a_typed_placeholder_its_own_message_does_not_fit_is_reported():
    found = problems(known(placeholders={"cls": {"type": "int"}}))
    assert [one.entry for one in found] == ["usable"] and found[0].key == ("diagnosis",)
    assert "its own verified before (at 4.57.6)" in found[0][1]


COUNT = "Expected 1 or 2 arguments, got {len(caches)}"


def test_a_relation_to_a_constant_its_own_before_breaks_is_reported():
    """A relation may compare a placeholder with an integer (`{len(caches)} != 2`): held to the before like any."""
    def counted(*relations: list) -> Known:
        return Known.from_index({"id": "count", "title": "t", "exception": "ValueError", "message": COUNT,
                                 "wordings": [{"message": COUNT}], "diagnosis": {"relations": list(relations)}})

    before = "ValueError: Expected 1 or 2 arguments, got 0\n"
    index = Index([counted(["len(caches)", "!=", 1], ["len(caches)", "!=", 2])], items={"count": {}})
    assert lint.check(index, [lint.Case("count", "5.15.1", before)]) == []
    index = Index([counted(["len(caches)", ">", 2])], items={"count": {}})
    found = lint.check(index, [lint.Case("count", "5.15.1", before)])
    assert [one.entry for one in found] == ["count"] and "the diagnosis rules out" in found[0][1], found


def test_frames_its_own_traceback_does_not_show_are_reported():
    found = problems(known(frames=[{"file": "transformers/cache_utils.py", "function": "update"}],
                           require_frame=True))
    assert len(found) == 1 and "transformers/cache_utils.py" in found[0][1]


def test_a_release_outside_the_wordings_range_is_reported():
    found = problems(known(), release="4.40.0")
    assert len(found) == 1 and "4.40.0" in found[0][1]


def test_an_other_cause_whose_range_holds_the_release_its_own_before_ran_on_is_reported():
    """The entry's own case would read as the other cause's: reported at that cause's `releases`."""
    found = problems(known(other_causes=[{"releases": "<4.56", "note": "fine"},
                                         {"releases": ">=4.57,<4.58", "note": "too wide"}]))
    assert [(one.entry, one.key) for one in found] == [("usable", ("diagnosis", "other_causes", 1, "releases"))]
    assert "other_causes[1].releases (>=4.57,<4.58) holds 4.57.6" in found[0].message
    assert problems(known(other_causes=[{"releases": "<4.56", "note": "fine"}])) == []


def test_errorkb_check_names_the_other_causes_releases_line(tmp_path, monkeypatch):
    from errorkb import cli
    from errorkb.site import hookindex
    from tests.kb import VALID_ENTRY, make_project

    text = VALID_ENTRY.format(id="demo-error") + (
        "diagnosis:\n  other_causes:\n    - releases: '<5.0'\n      note: Another cause.\n")
    project = load_project(make_project(tmp_path, entries={"demo-error.yml": text}))
    result = load_project_entries(project)
    assert result.problems == []
    message = ("`head_dim` was provided as a list of length 3, but the Cache currently has 2 layers")
    traceback = ("Traceback (most recent call last):\n  File \"/v/transformers/cache_utils.py\", line 1471, in "
                 f"early_initialization\n    raise ValueError(\nValueError: {message}\n")
    monkeypatch.setattr(hookindex, "diagnosis_cases", lambda *_: [lint.Case("demo-error", "4.50.0", traceback)])
    found = [str(one) for one in cli._diagnosis_problems(project, result)]
    line = text.count("\n") - 1
    assert found == [f"docs/errors/transformers/demo-error.yml:{line}:7: diagnosis: other_causes[0]."
                     "releases (<5.0) holds 4.50.0, the release of its own verified before (at 4.50.0): the entry's "
                     "own case would read as the other cause; narrow the other cause's range"], found


def test_a_tie_its_own_before_does_not_satisfy_is_reported():
    """`ties` confirms on a value alone: a declaration the verified before's own value does not satisfy would
    confirm what the verifier never saw (the before is confirmed here by the wording's release)."""
    found = problems(known(placeholders={"cls": {"type": "class", "ties": [
        {"names": ["*ForCausalLM"], "because": "names a generating model"}]}}))
    assert [one.entry for one in found] == ["usable"] and "`ties`" in found[0].message, found
    assert problems(known(placeholders={"cls": {"type": "class", "ties": [
        {"names": ["Dynamic*"], "because": "names a cache"}]}})) == []


@pytest.mark.upstream
def test_every_entry_of_the_project_is_confirmed_by_its_own_verified_before():
    project = load_project(ROOT)
    entries = [one.entry for one in load_project_entries(project).entries]
    cases = diagnosis_cases(project)
    if not cases:
        pytest.skip("no standing report with captured tracebacks (reports/latest.json)")
    assert len(cases) >= 0.9 * len(entries), "most entries have a verified before with a traceback"
    assert lint.check(project_index(project, entries), cases) == []


def test_a_record_of_a_check_the_entry_has_not_is_no_diagnosis_case(tmp_path):
    """Reports come from other machines and shards: a passing upstream before recorded for a device the
    runtime has not (or a guard renamed since) is no check of the knowledge base's, and the pages leave it out
    (`files.expected_reports`); `errorkb check` held the entry's diagnosis to its forged traceback all the same."""
    from errorkb.results.keys import project_inputs
    from errorkb.results.report import read_reports
    from errorkb.site.files import expected_reports
    from tests.kb import copy_kb

    root = copy_kb(tmp_path / "kb", ["layer-idx-out-of-range"])
    project = load_project(root)
    standing = json.loads((ROOT / "reports" / "latest.json").read_text(encoding="utf-8"))
    ours = [check for check in standing["checks"] if check["entry"] == "layer-idx-out-of-range"]
    (real,) = [check for check in ours if check["role"] == "before" and check["target"] == "upstream"
               and check["device"] == "cpu"]
    # made from the copy's entry (copy_kb drops `related` ids it did not copy): a stale pass is no case at all
    (entry,) = [one.entry for one in load_project_entries(project).entries]
    real = {**real, "inputs": project_inputs(project, entry)}
    forged = {**real, "device": "tpu", "id": real["id"].replace("cpu", "tpu"),
              "evidence": {"allocated_bytes": 4096, "calls": 1},  # a device's pass with no evidence is left out earlier
              "exception": {**real["exception"], "traceback": "Traceback (most recent call last):\nForged: planted"}}
    # the forged record sorts first: its entry's case would be read from it
    (project.reports / "latest.json").parent.mkdir(parents=True, exist_ok=True)
    (project.reports / "latest.json").write_text(json.dumps({**standing, "checks": [forged]}), encoding="utf-8")
    loaded = load_project_entries(project)
    reports, _ = read_reports(project.reports, ("cpu", "cuda", "tpu"))
    assert expected_reports(project, loaded, reports)[1], "the pages leave the forged record out"
    assert diagnosis_cases(project, loaded) == []
    (project.reports / "latest.json").write_text(json.dumps({**standing, "checks": [real, forged]}), encoding="utf-8")
    (case,) = diagnosis_cases(project, loaded)
    assert "Forged" not in case.text
