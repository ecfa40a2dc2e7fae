"""The judge's pass through another of an entry's wordings keeps where that wording says it is worded so as a claim
(`Worded`: the wording's release range and device, as the entry states them), not only as words: the reason says the
range in the words of the day ("as worded in 4.43 – 4.53"), and every view words the claim when it shows it, as a
not-applicable record's `Claim` is (session 57). Observations are built by hand, as in `test_judge_raise_site`."""

from __future__ import annotations

import pytest

from errorkb.core.project import load_project
from errorkb.plugs import runtime_for
from errorkb.results.records import CheckRecord, Worded
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check
from errorkb.verify.records import Code, ExceptionInfo, Observation, Outcome, Start, Status, Verdict
from errorkb.verify.run import Run
from tests.kb import ROOT
from tests.verify.judging import before_check
from tests.verify.test_judge_raise_site import ENTRY, MESSAGE, STUB, WATCHED

OWN = "'LlamaForCausalLM' object has no attribute '_reorder_cache'"


def _judged(check: Check, error: ExceptionInfo) -> Verdict:
    seen = Observation(status=Status.RAISED, exception=error)
    return judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="raised"), runtime_for("torch"))


def _other_wording(check: Check) -> Verdict:
    """4.43 - 4.53's NotImplementedError, raised in the watched code: the entry's second wording."""
    started = Start(type="NotImplementedError", qualified_type="builtins.NotImplementedError", message=MESSAGE,
                    line=1, opcode="RAISE_VARARGS", where="target", function=WATCHED, code=STUB)
    return _judged(check, ExceptionInfo(type="NotImplementedError", qualified_type="builtins.NotImplementedError",
                                        message=MESSAGE, started=started))


@pytest.fixture
def check(tmp_path) -> Check:
    return before_check(tmp_path, ENTRY, "model._reorder_cache(past, beam_idx)\n", "upstream", "4.46.1")


def test_a_pass_through_another_wording_keeps_the_wordings_range_as_a_claim(check):
    verdict = _other_wording(check)
    assert (verdict.outcome, verdict.code, verdict.wording) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED, 1)
    assert verdict.claim == Worded(releases=">=4.43,<4.54", device=None), verdict
    assert verdict.reason == f"raised NotImplementedError from {STUB} (line 1), as worded in 4.43 – 4.53"


def test_the_record_of_such_a_pass_reads_as_its_reason_said_on_the_day(check):
    """Worded now as the judge worded it then: the claim changes nothing a reader is told today."""
    verdict = _other_wording(check)
    record = CheckRecord(id=check.id, entry=check.entry.id, role=check.role, snippet="before.py", target=check.target,
                         device=check.device, outcome=verdict.outcome, code=verdict.code, reason=verdict.reason,
                         expected="", verified_at="2026-12-07T05:00:00+00:00", wording=verdict.wording,
                         claim=verdict.claim)
    assert record.said == verdict.reason and record.because == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED, record.said)


def test_a_pass_in_the_entrys_own_wording_claims_no_range(tmp_path):
    check = before_check(tmp_path, ENTRY, "model._reorder_cache(past, beam_idx)\n", "upstream", "5.15.1")
    error = ExceptionInfo(type="AttributeError", qualified_type="builtins.AttributeError", message=OWN,
                          started=Start(type="AttributeError", qualified_type="builtins.AttributeError", message=OWN,
                                        line=1, opcode="LOAD_ATTR",
                                        where="snippet"),
                          api={"via": "attribute", "owner_is_target": True, "name": "_reorder_cache",
                               "absent_in_target": True})
    verdict = _judged(check, error)
    assert (verdict.outcome, verdict.wording, verdict.claim) == (Outcome.PASS, 0, None), verdict
    assert "as worded" not in verdict.reason


def test_the_record_the_verifier_writes_keeps_the_claim(check):
    from errorkb.verify.engine import record_of

    verdict = _other_wording(check)
    record = record_of(check, load_project(ROOT), verdict)
    assert record.claim == verdict.claim and record.said == verdict.reason, record
