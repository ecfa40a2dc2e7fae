"""What a reader sees, round five (session 57): a record keeps what it was judged on, and every view words it now.

A not-applicable record stored the verifier's words of its day ("it raises in >=4.45", later "4.45 and later"), and
the pages folded badges by that text: one entry's CPU and CUDA records read differently until both were re-verified,
and the version matrix's records (which keep no claim) still say ">=4.45" in the strips' hover text. A record now
keeps the entry's claim (`CheckRecord.claim`); views say `CheckRecord.said` (the claim worded now, an older record's
range in words) and fold on (outcome, code, claim), never on stored text."""

from __future__ import annotations

import io
import json
import re

import pytest
from rich.console import Console

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.core.words import release_words
from errorkb.results.matrix import read_matrix, release_states
from errorkb.results.records import CheckRecord, Code
from errorkb.site import render, terminal
from tests.kb import ROOT
from tests.site.sitekb import record, write_report
from tests.site.test_render import ENTRY, FILES, page_for, pages_of

OLD = "transformers 5.15.1 does not raise this error (it raises in >=4.45)"  # a verifier's words before session 56
NEW = "transformers 5.15.1 does not raise this error (it raises in 4.45 and later)"  # session 56's
CLAIM = {"library": "transformers", "release": "5.15.1", "raises": ">=4.45"}
# A release specifier a reader would have to decode, right after the words that introduce a range in a reason.
RAW = re.compile(r"(?:worded in|raises in) (?:&gt;|&lt;|[<>=!~])")


def _not_applicable(project, reasons: dict[str, str], claims: dict[str, dict] | None = None) -> None:
    """Every check of the entry not applicable, on both targets, each device's records with its own stored words
    (and, where `claims` says, the claim a verifier of this session keeps beside them)."""
    checks = []
    for device, reason in reasons.items():
        for target in ("bundled", "upstream"):
            for role, file in FILES.items():
                one = record(project, ENTRY, role, file, target=target, device=device, outcome="not-applicable",
                             reason=reason)
                if claims and device in claims:
                    one["claim"] = claims[device]
                checks.append(one)
    write_report(project, checks)


def _folded(project) -> list[render.Shown]:
    return [b for b in render.shown_badges(page_for(project)) if b.folded]


# -- 1. one claim, worded two ways, is one badge ----------------------------------------------------------------


def test_one_claim_worded_the_old_way_and_the_new_folds_into_one_badge_in_todays_words(project):
    """CPU re-verified after the words changed, CUDA not: two 'not applicable' badges, one saying '>=4.45'."""
    _not_applicable(project, {"cpu": NEW, "cuda": OLD})
    folded = _folded(project)
    assert [(b.where, b.detail) for b in folded] == [("every target and device", NEW)], folded


def test_records_that_keep_the_claim_fold_on_it_whatever_words_they_stored(project):
    """The claim, not the stored sentence, says it: a record whose verifier worded the range otherwise still reads
    as the claim worded now, and folds with the other device's."""
    elsewhere = "transformers 5.15.1 does not raise this error (from 4.45 on)"  # some verifier's own words
    _not_applicable(project, {"cpu": NEW, "cuda": elsewhere}, {"cpu": CLAIM, "cuda": CLAIM})
    folded = _folded(project)
    assert [(b.where, b.detail) for b in folded] == [("every target and device", NEW)], folded


def test_two_claims_are_two_badges(project):
    """The fold joins one claim, never two: the CUDA records claim 4.46 and later."""
    other = CLAIM | {"raises": ">=4.46"}
    _not_applicable(project, {"cpu": NEW, "cuda": NEW}, {"cpu": CLAIM, "cuda": other})
    said = sorted(b.detail for b in _folded(project))
    assert said == [NEW, NEW.replace("4.45", "4.46")], said


# -- 2. what the JSON API keeps, what the terminal says ---------------------------------------------------------


def test_the_json_api_keeps_the_claim_and_says_the_reason_in_todays_words(project):
    _not_applicable(project, {"cpu": OLD, "cuda": OLD}, {"cpu": CLAIM})
    _, files = pages_of(project)
    api = json.loads(next(f.content for f in files if f.path == f"api/errors/{ENTRY}.json"))
    by_device = {(r["device"], r["target"], r["role"]): r for r in api["verification"]}
    cpu, cuda = by_device[("cpu", "bundled", "before")], by_device[("cuda", "bundled", "before")]
    assert cpu["claim"] == CLAIM | {"pinned": None} and cpu["reason"] == NEW, cpu
    assert cuda["claim"] is None and cuda["reason"] == NEW, cuda  # an older record: read soundly from its reason
    assert not [b for b in api["badges"] if ">=" in b["detail"]], api["badges"]


def test_show_says_an_older_records_range_in_words(project):
    _not_applicable(project, {"cpu": OLD, "cuda": OLD})
    out = io.StringIO()
    Console(file=out, width=400, color_system=None).print(terminal._verification(page_for(project)))
    assert "it raises in 4.45 and later" in out.getvalue() and ">=4.45" not in out.getvalue(), out.getvalue()


# -- 3. the verifier keeps the claim ----------------------------------------------------------------------------


def test_the_verifier_keeps_the_entrys_claim_on_a_not_applicable_record():
    """The specifier of the entry's `releases.raises`, or its pinned release; the reason its words of today."""
    from errorkb.verify.engine import Upstream, Verifier, plan_checks

    project = load_project(ROOT)
    loaded = load_project_entries(project).entries
    verifier = Verifier(project, ["bundled", "upstream"], upstream=Upstream.PINNED, sandbox="off")
    try:
        checks = plan_checks(project, loaded, targets=["bundled", "upstream"], devices=["cpu"])
        claimed = [check for check in checks if verifier.claimed(check) is not None]
        assert len(claimed) >= 10, len(claimed)  # the knowledge base has many such entries
        for check in claimed:
            found = verifier.answer(check)
            assert found is not None and found.code is Code.NOT_APPLICABLE and found.claim is not None, found
            releases = check.entry.releases
            assert found.claim.raises == (releases.raises if releases else None), (check.id, found.claim)
            assert found.claim.release == check.release and found.reason == found.said == found.claim.words
            assert found.claim.raises is None or release_words(found.claim.raises) in found.reason
    finally:
        verifier.close()


def test_a_report_written_before_records_kept_the_claim_loads_and_reads_in_words():
    """reports/latest.json today: no record names a claim; each not-applicable reason reads in words."""
    data = json.loads((ROOT / "reports" / "latest.json").read_text(encoding="utf-8"))
    records = [CheckRecord.model_validate(one) for one in data["checks"]]
    assert records and all(one.claim is None for one in records if "claim" not in one.model_fields_set)
    said = [one.said for one in records if one.code is Code.NOT_APPLICABLE]
    assert said and not [one for one in said if RAW.search(one)], said[:3]


# -- 4. the version matrix's records, in words wherever a reader sees them -------------------------------------


def test_the_matrix_files_ranges_read_in_words_in_its_states():
    """'as worded in >=4.45': the matrix file's records keep no claim; read soundly from the judge's sentence."""
    matrix = read_matrix(load_project(ROOT))
    assert matrix is not None
    states = release_states("cache-implementation-with-past-key-values", matrix) or []
    said = [one.before for one in states if one.before]
    assert any(one.endswith("as worded in 4.45 and later") for one in said), said
    assert not [one for one in said if RAW.search(one)], said


def test_no_page_says_a_specifier_where_a_reason_names_a_range(real_page_sources):
    """The strips' hover text said 'as worded in &gt;=4.39,&lt;4.41' on 16 entry pages."""
    found = {path: text[max(0, m.start() - 80):m.end() + 20] for path, text in real_page_sources.items()
             if (m := RAW.search(text))}
    assert not found, found
    page = real_page_sources["errors/transformers/cache-implementation-with-past-key-values.md"]
    assert "as worded in 4.45 and later" in page


@pytest.mark.parametrize(("code", "reason", "said"), [
    ("not-applicable", OLD, NEW),
    ("not-applicable", NEW, NEW),  # already words: as stored
    ("not-applicable", "transformers 5.15.1 does not raise this error (it raises in ~=4.45)",
     "transformers 5.15.1 does not raise this error (it raises in ~=4.45)"),  # no plain words: never guessed at
    ("raised-as-documented", "raised ValueError from f (line 3), as worded in >=4.39,<4.41 on cuda",
     "raised ValueError from f (line 3), as worded in 4.39 – 4.40 on cuda"),
    ("raised-as-documented", "raised ValueError from f (line 3), as worded in <4.42 || >=4.54",
     "raised ValueError from f (line 3), as worded in 4.41 and earlier, 4.54 and later"),
    # Not the verifier's sentence for the code: what a snippet printed or a message said stays as it was.
    ("message-differs", "message differs\n  expected: as worded in >=4.45\n  actual: x",
     "message differs\n  expected: as worded in >=4.45\n  actual: x"),
    ("not-applicable", "the bundled implementation has no transformers.x (it raises in >=4.45) here",
     "the bundled implementation has no transformers.x (it raises in >=4.45) here"),
    ("raised-as-documented", "raised ValueError: as worded in >=4.45, then more", "raised ValueError: as worded in "
     ">=4.45, then more"),
])
def test_an_older_reason_changes_only_where_the_verifiers_own_sentence_named_a_range(code, reason, said):
    from errorkb.results.records import worded

    assert worded(code, reason) == said
