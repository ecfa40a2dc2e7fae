"""Zero false passes on the adversarial fixture: the part of issue 12 that phase 2 delivers.

Phase 1 (the sandbox) bounds what a hostile snippet can do to its own verdict; it does not stop
it from lying about that verdict. Until phase 2 judges by identity (the raising frame's code
object, every call observed to return, in every thread) and reads observations the snippet
cannot forge, the answer key's `phase: 2` verdicts are false passes, so these tests fail:
strictly expected to, so that the day they pass this mark has to go.
"""

from __future__ import annotations

import re

import pytest

from tests.verify.adversarial import answer_key

KEY = answer_key()

pytestmark = [pytest.mark.xfail(strict=True, reason="issue 12 phase 2"), pytest.mark.timeout(3600)]


def _attacks(run) -> list[dict]:
    return [record for record in run.outcome.records.values() if record["entry"] in KEY]


def test_zero_false_passes(adversarial_run):
    passed = [f"{record['id']}: {record['reason']}" for record in _attacks(adversarial_run)
              if record["outcome"] == "pass"]
    assert passed == []


def test_every_verdict_is_the_answer_keys(adversarial_run):
    wrong = []
    for record in _attacks(adversarial_run):
        want = KEY[record["entry"]][record["role"]]
        if record["outcome"] != want["outcome"] or not re.search(want["reason"], record["reason"]):
            wrong.append(f"{record['id']}: {record['outcome']}: {record['reason'].splitlines()[0]}")
    assert wrong == []
