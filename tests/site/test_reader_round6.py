"""What a reader sees, round six (session 58): a pass through another of an entry's wordings keeps its wording's range
as a claim, as a not-applicable record keeps its own (round five), and every view words it now.

The judge's "raised X from f (line 3), as worded in >=4.39,<4.41" stored the range as the words of its day (later
"4.39 – 4.40"): two records of one check read differently until both were re-verified, and a record kept nothing but
those words. A record now keeps the wording's range and device (`Worded`); views say `CheckRecord.said` (the judge's
observation, then the claim worded now) and compare (outcome, code, claim), never the stored sentence. A record of the
days before keeps rendering as it did (`records.worded`)."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from errorkb.results.records import CheckRecord, Claim, Code, Worded, worded
from errorkb.results.report import ReportError, read_report
from tests.site.sitekb import record, write_report
from tests.site.test_render import ENTRY, FILES, pages_of

SEEN = "raised ValueError from Cache.early_initialization (line 1471)"  # the judge's observation
RANGE = ">=4.43,<4.54"
NOW = f"{SEEN}, as worded in 4.43 – 4.53 on cuda"  # the claim worded now
# The words three verifiers could have stored for one claim: the specifier (before session 56), today's words, and
# some other verifier's own.
STORED = [f"{SEEN}, as worded in {RANGE} on cuda", NOW, f"{SEEN}, as worded from 4.43 to 4.53 (on cuda)"]
CLAIM = {"releases": RANGE, "device": "cuda"}
RAW = re.compile(r"worded in (?:&gt;|&lt;|[<>=!~])")


def _record(reason: str, claim: dict | None = CLAIM, *, code: str = "raised-as-documented", outcome: str = "pass",
            device: str = "cuda") -> CheckRecord:
    fields = {"id": f"e::before[upstream-{device}]", "entry": "e", "role": "before", "snippet": "snippets/e/before.py",
              "target": "upstream", "device": device, "outcome": outcome, "code": code, "reason": reason,
              "expected": "ValueError", "verified_at": "2026-12-07T05:00:00+00:00", "wording": 1}
    return CheckRecord.model_validate(fields | ({"claim": claim} if claim is not None else {}))


# -- 1. one claim, however it was worded, reads and compares as one ------------------------------------------------


@pytest.mark.parametrize("reason", STORED)
def test_a_records_claim_is_worded_now_whatever_words_its_verifier_stored(reason):
    one = _record(reason)
    assert isinstance(one.claim, Worded) and one.said == NOW, one.said


def test_records_of_one_claim_worded_three_ways_are_one_to_a_reader():
    """What the pages fold and compare on (`because`): one claim, one key, whatever the stored sentence."""
    keys = {_record(reason).because for reason in STORED}
    assert keys == {("pass", Code.RAISED_AS_DOCUMENTED, NOW)}, keys


def test_two_claims_are_two():
    other = _record(STORED[0], {"releases": ">=4.44,<4.54", "device": "cuda"})
    assert other.because != _record(STORED[0]).because and other.said == NOW.replace("4.43", "4.44")


def test_a_record_of_the_days_before_claims_renders_as_it_did():
    """No claim kept: the stored reason, its range in words where the judge's own sentence named one."""
    for reason in STORED:
        old = _record(reason, None)
        assert old.claim is None and old.said == worded("raised-as-documented", reason), old.said
    assert _record(STORED[0], None).said == NOW  # the specifier in words, as round five read it
    assert _record(STORED[2], None).said == STORED[2]  # words it cannot read: as stored, never guessed at


@pytest.mark.parametrize(("claim", "said"), [
    ({"releases": None, "device": None}, f"{SEEN}, as worded otherwise"),
    ({"releases": RANGE}, f"{SEEN}, as worded in 4.43 – 4.53"),
    ({"device": "cuda"}, f"{SEEN}, as worded on cuda"),
    ({"releases": "~=4.45"}, f"{SEEN}, as worded in ~=4.45"),  # no plain words: the specifier as the entry states it
])
def test_the_claim_says_the_wordings_range_and_device_as_the_judge_says_them(claim, said):
    assert _record(f"{SEEN}, as worded whatever the day said", claim).said == said


def test_a_stored_reason_without_the_judges_joint_keeps_its_observation_and_adds_the_claim():
    """A record whose reason holds the observation alone (written by hand, cut): the claim is said after it."""
    assert _record(SEEN).said == NOW


def test_the_claim_round_trips_through_a_report_as_the_claim_it_is():
    for one in (_record(STORED[0]), _record(STORED[0], {})):
        again = CheckRecord.model_validate(json.loads(one.model_dump_json(exclude_none=True)))
        assert again == one and type(again.claim) is Worded, again.claim
    not_applicable = _record("transformers 5.15.1 does not raise this error (it raises in >=4.45)",
                             {"library": "transformers", "release": "5.15.1", "raises": ">=4.45"},
                             code="not-applicable", outcome="not-applicable")
    assert type(not_applicable.claim) is Claim


# -- 2. a claim that does not fit its verdict is no record ---------------------------------------------------------


@pytest.mark.parametrize(("code", "outcome", "claim"), [
    ("raised-as-documented", "pass", {"library": "transformers", "release": "5.15.1", "raises": ">=4.45"}),
    ("wrong-exception", "fail", CLAIM),
    ("not-applicable", "not-applicable", CLAIM),
    ("ran-clean", "pass", CLAIM),
])
def test_a_claim_on_a_verdict_it_does_not_explain_is_refused(code, outcome, claim):
    """A not-applicable claim on a pass would tell a reader "does not raise this error" of an error that was raised;
    a wording's range on a failure, that it was raised."""
    with pytest.raises(ValidationError, match="claim explains a verdict of code .*remove its `claim`, or re-verify the check"):
        _record(STORED[0], claim, code=code, outcome=outcome)


def test_a_report_holding_such_a_record_is_refused_naming_the_file_the_line_and_what_to_do(project):
    bad = record(project, ENTRY, "before", FILES["before"], outcome="fail", reason="raised KeyError: 'x'")
    path = write_report(project, [bad | {"claim": CLAIM}])
    with pytest.raises(ReportError) as raised:
        read_report(path)
    said = str(raised.value)
    assert str(path) in said and "checks.0, line 1" in said and "remove its `claim`" in said, said


# -- 3. every view: the entry page, the JSON API -------------------------------------------------------------------


def _passes(project, reasons: dict[str, str], claims: dict[str, dict]) -> None:
    """The entry's before passed through its second wording on both devices, each device's record with its own stored
    words (and its claim where `claims` says); its other snippets passed."""
    checks = []
    for device, reason in reasons.items():
        for role, file in FILES.items():
            one = record(project, ENTRY, role, file, target="upstream", device=device,
                         reason=reason if role == "before" else "called it 1× and every call returned")
            if role == "before":
                one |= {"wording": 1} | ({"claim": claims[device]} if device in claims else {})
            checks.append(one)
    write_report(project, checks)


def test_the_entry_page_and_the_json_api_say_each_records_claim_in_todays_words(project):
    cpu = {"releases": RANGE}
    _passes(project, {"cpu": f"{SEEN}, as worded from 4.43 to 4.53", "cuda": STORED[0]}, {"cpu": cpu, "cuda": CLAIM})
    _, files = pages_of(project)
    page = next(f.content for f in files if f.path == f"errors/transformers/{ENTRY}.md")
    assert f"{SEEN}, as worded in 4.43 – 4.53 |" in page and NOW in page, page
    assert "from 4.43 to 4.53" not in page and not RAW.search(page), page
    api = json.loads(next(f.content for f in files if f.path == f"api/errors/{ENTRY}.json"))
    before = {r["device"]: r for r in api["verification"] if r["role"] == "before"}
    assert before["cuda"]["claim"] == CLAIM and before["cuda"]["reason"] == NOW, before["cuda"]
    assert before["cpu"]["claim"] == cpu | {"device": None}, before["cpu"]
    assert before["cpu"]["reason"] == f"{SEEN}, as worded in 4.43 – 4.53", before["cpu"]


def test_an_older_pass_without_a_claim_reads_on_the_page_as_it_did(project):
    _passes(project, {"cpu": STORED[0].replace(" on cuda", ""), "cuda": STORED[0]}, {})
    _, files = pages_of(project)
    api = json.loads(next(f.content for f in files if f.path == f"api/errors/{ENTRY}.json"))
    before = {r["device"]: r for r in api["verification"] if r["role"] == "before"}
    assert before["cuda"]["claim"] is None and before["cuda"]["reason"] == NOW, before["cuda"]
    assert before["cpu"]["reason"] == f"{SEEN}, as worded in 4.43 – 4.53", before["cpu"]


# -- 4. the version matrix's file keeps the claim its records keep -----------------------------------------------

def test_the_matrix_file_keeps_a_passes_claim_and_its_states_word_it_now():
    from errorkb.results.matrix import MatrixFile, release_states

    stamp = "2026-12-07T05:00:00+00:00"
    before = {"outcome": "pass", "code": "raised-as-documented", "reason": f"{SEEN}, as worded from 4.43 to 4.53",
              "wording": 1, "claim": {"releases": RANGE}}
    matrix = MatrixFile.model_validate({
        "package": "transformers", "updated": stamp, "releases": [{"release": "4.46.1", "ran": True, "measured": stamp}],
        "results": [{"entry": "e", "release": "4.46.1", "before": before, "digest": "d", "measured": stamp}]})
    assert matrix.results[0].before is not None and matrix.results[0].before.claim == Worded(releases=RANGE)
    again = MatrixFile.model_validate(json.loads(matrix.text()))
    assert again == matrix
    said = [one.before for one in release_states("e", matrix) or []]
    assert said == [f"{SEEN}, as worded in 4.43 – 4.53"], said


def test_a_matrix_run_writes_the_claim_its_records_keep(project):
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.verify.matrix import collect

    entries = [one.entry for one in load_project_entries(load_project(project)).entries if one.entry.id == ENTRY]
    before = CheckRecord.model_validate(record(project, ENTRY, "before", FILES["before"], target="upstream",
                                               reason=STORED[0]) | {"wording": 1, "claim": CLAIM, "release": "4.46.1"})
    found = collect(entries, "4.46.1", [before], lambda path: None, {ENTRY: "d"})
    assert [one.before.claim for one in found if one.before] == [Worded(**CLAIM)], found


# -- 5. a path of the machine that ran a check is no part of what a reader compares or reads ------------------------
# The version matrix's reasons quote each release's environment ("(/work/main/.errorkb-cache/matrix/transformers-
# 4.36.2/lib/python3.11/site-packages/transformers/cache_utils.py)"): the story of releases, folding runs on the
# reason, said one line per release (19 for one entry, each naming this machine's folders), and 21 entry pages showed
# those folders; a captured message named the checkout's `.venv`.

ENV = "/work/main/.errorkb-cache/matrix/transformers-{}/lib/python3.11/site-packages/transformers/cache_utils.py"
INSTALLED = re.compile(r"/[^\s/'\"()]+/(?:site|dist)-packages/")  # an absolute folder before the environment's own


@pytest.mark.parametrize(("text", "shown"), [
    (f"raised ImportError: cannot import name 'X' from 'transformers.cache_utils' ({ENV.format('4.36.2')}); expected "
     "AttributeError", "raised ImportError: cannot import name 'X' from 'transformers.cache_utils' (…/site-packages/"
     "transformers/cache_utils.py); expected AttributeError"),
    ("No module named x: '/usr/lib/python3/dist-packages/a/b.py'", "No module named x: '…/dist-packages/a/b.py'"),
    ("see https://example.org/a/site-packages/b", "see https://example.org/a/site-packages/b"),  # an address
    ("relative site-packages/x.py and C:/x/site-packages/y.py", "relative site-packages/x.py and C:/x/site-packages/y.py"),
])
def test_a_path_into_an_installed_environment_is_said_from_its_packages_folder_on(text, shown):
    from errorkb.results.records import unrooted

    assert unrooted(text) == shown


def test_records_of_one_failure_in_two_releases_environments_are_one_to_a_reader():
    reasons = [f"raised ImportError: cannot import name 'X' ({ENV.format(release)}); expected AttributeError"
               for release in ("4.36.2", "4.37.2")]
    keys = {_record(reason, None, code="wrong-exception", outcome="fail").because for reason in reasons}
    assert len(keys) == 1 and "/work/" not in next(iter(keys))[2], keys


def test_the_matrix_story_folds_the_releases_one_failure_spans():
    from errorkb.core.project import load_project
    from errorkb.results.matrix import read_matrix, release_states
    from errorkb.site.render import release_story
    from tests.kb import ROOT

    matrix = read_matrix(load_project(ROOT))
    assert matrix is not None
    story = release_story(release_states("cache-append-new-layers-removed", matrix) or [])
    assert story[0].releases == "4.36.2 – 4.53.3" and "(…/site-packages/transformers/cache_utils.py)" in story[0].why, \
        story[:3]
    named = {(entry, line.why) for entry in {r.entry for r in matrix.results}
             for line in release_story(release_states(entry, matrix) or []) if INSTALLED.search(line.why)}
    assert not named, sorted(named)[:3]


def test_no_page_shows_the_folders_of_the_machine_that_verified(real_page_sources):
    found = {path: text[max(0, m.start() - 80):m.end() + 40] for path, text in real_page_sources.items()
             if (m := INSTALLED.search(text))}
    assert not found, found


def test_a_captured_message_shows_no_folder_of_the_machine_that_ran_it(project):
    where = "/home/ci/venv/lib/python3.11/site-packages/transformers/__init__.py"
    message = f"cannot import name 'HybridCache' from 'transformers' ({where})"
    captured = {"type": "ImportError", "message": message,
                "traceback": f"Traceback (most recent call last):\n  File \"before.py\"\nImportError: {message}\n"}
    checks = [record(project, ENTRY, role, file, reason="raised ImportError at the use of x",
                     exception=captured if role == "before" else None) for role, file in FILES.items()]
    write_report(project, checks)
    _, files = pages_of(project)
    page = next(f.content for f in files if f.path == f"errors/transformers/{ENTRY}.md")
    assert "(…/site-packages/transformers/__init__.py)" in page and "/home/ci/" not in page, page


def test_no_file_of_the_site_shows_them():
    """The JSON API too: its records' reasons (`shown_record`) and what the version matrix measured (`versions`)."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.results.report import read_reports
    from errorkb.site.files import site_files
    from tests.kb import ROOT

    project = load_project(ROOT)
    reports, _ = read_reports(ROOT / "reports", ("cpu", "cuda"))
    _, files = site_files(project, load_project_entries(project), reports)
    found = {f.path: f.content[max(0, m.start() - 80):m.end() + 40] for f in files
             if isinstance(f.content, str) and (m := INSTALLED.search(f.content))}
    assert len(files) > 100 and not found, found
