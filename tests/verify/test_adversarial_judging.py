"""Zero false passes on the adversarial fixture: what issue 12's phase 2 delivers.

Phase 1 (the sandbox) bounds what a hostile snippet can do to anything but its own verdict;
phase 2 keeps it from lying about that verdict: judgement by identity (the code object an
exception started in, every call observed to return, in every thread), over a stream the
snippet can add to but not take back, from an observer whose state it cannot reach. Every
snippet of the fixture, in both isolations (subprocess mode: all but the attacks on the judgement alone,
`adversarial.JUDGE_ONLY`), on each one's targets (`adversarial.TARGETS`), fails, for the answer key's
reason.
"""

from __future__ import annotations

import re

import pytest

from tests.verify.adversarial import TARGETS, answer_key, attacks

KEY = answer_key()
CASES = [(isolation, entry, role, target) for isolation, targets in TARGETS.items()
         for entry in attacks(isolation) for role in KEY[entry] for target in targets]

pytestmark = pytest.mark.timeout(3600)


def _attacks(run) -> list[dict]:
    return [record for record in run.outcome.records.values() if record["entry"] in KEY]


def test_zero_false_passes(adversarial_run):
    passed = [f"{record['id']}: {record['reason']}" for record in _attacks(adversarial_run)
              if record["outcome"] == "pass"]
    assert passed == []


def test_every_attack_was_judged(adversarial_run):
    planned = [case for case in CASES if case[0] == adversarial_run.isolation]
    assert len(_attacks(adversarial_run)) == len(planned)


@pytest.mark.parametrize(("adversarial_run", "entry", "role", "target"), CASES, indirect=["adversarial_run"],
                         ids=[f"{i}-{e}::{r}[{t}]" for i, e, r, t in CASES])
def test_verdict(adversarial_run, entry, role, target):
    record = adversarial_run.record(f"{entry}::{role}[{target}-cpu]")
    want = KEY[entry][role]
    assert record["outcome"] == want["outcome"], f"{record['id']}: {record['reason']}"
    assert re.search(want["reason"], record["reason"]), f"{record['id']}: {record['reason']!r}"
