"""Every deliberately broken entry gets its precise verdict on both targets; the good ones pass."""

from __future__ import annotations

import hashlib
import re

import pytest

from errorkb.verify.sandbox import probe
from tests.verify.verifykb import BACKSTOP_S, CUDA, FIXTURE, TARGETS, UPSTREAM, expectations

EXPECTED = expectations()
ISOLATION = "fork" if probe() else "fork+bwrap"  # the sandbox, wherever it can be created
CASES = [(entry, role, target) for entry, roles in EXPECTED.items() for role in roles for target in TARGETS]


def test_the_fixture_covers_at_least_15_failure_kinds():
    failing = {(entry, role) for entry, roles in EXPECTED.items() for role, want in roles.items()
               if want["outcome"] == "fail"}
    assert len({entry for entry, _ in failing}) >= 15
    assert any(want["outcome"] == "pass" for roles in EXPECTED.values() for want in roles.values())


def test_the_hanging_check_ends_at_the_backstop_the_run_gave(records):
    """`verify(wall_s=...)` reaches every check: after-hangs holds the run BACKSTOP_S, not the 36 s
    its 6 s of CPU time would give."""
    for target in TARGETS if UPSTREAM else ["bundled"]:
        reason = records[f"after-hangs::after[{target}-cpu]"].reason
        assert reason.startswith(f"timed out: still running after the {BACKSTOP_S:g} s wall-clock backstop "
                                 "(its limit is 6 s of CPU time"), reason


def test_the_report_has_exactly_the_expected_checks(records):
    planned = {f"{entry}::{role}[{target}-{device}]" for entry, role, target in CASES for device in ("cpu", "cuda")}
    assert set(records) == planned


@pytest.mark.parametrize(("entry", "role", "target"), CASES, ids=[f"{e}::{r}[{t}]" for e, r, t in CASES])
def test_verdict(records, entry, role, target):
    record = records[f"{entry}::{role}[{target}-cpu]"]
    if target == "upstream" and not UPSTREAM:
        assert record.outcome == "not-run" and "transformers is not installed" in record.reason
        return
    want = EXPECTED[entry][role]
    assert record.outcome == want["outcome"], f"{record.id}: {record.reason}"
    if want.get("reason"):
        assert re.search(want["reason"], record.reason), f"{record.id}: {record.reason!r}"


def test_nothing_passes_that_the_answer_key_calls_a_failure(records):
    """The converse guard: a verifier that passed everything would fail here at once."""
    wrongly = [r.id for r in records.values() if r.device == "cpu" and r.outcome == "pass"
               and EXPECTED[r.entry][r.role]["outcome"] != "pass"]
    assert wrongly == []


def test_cuda_checks_are_not_run_without_a_device(records):
    if CUDA:
        pytest.skip("this machine has a CUDA device")
    cuda = [r for r in records.values() if r.device == "cuda"]
    assert cuda and {(r.outcome, r.reason) for r in cuda} == {("not-run", "no cuda device")}


def test_evidence_is_recorded_for_every_check_that_ran(records):
    for record in records.values():
        if record.outcome == "not-run":
            continue
        snippet = (FIXTURE / record.snippet).read_bytes()
        assert record.snippet_sha256 == hashlib.sha256(snippet).hexdigest()
        assert record.duration_s > 0 and record.isolation == ISOLATION and record.cached is False
        assert record.expected and record.actual
        if record.reason.startswith(("source.function", "timed out", "printed more", "crashed", "killed")):
            continue
        environment = record.environment
        assert environment["python"] and environment["runtime"] == "torch"
        assert environment["runtime_version"].startswith("2.")
        assert environment["device"] == "cpu" and environment["device_name"]
        assert environment["library"] == "transformers" and environment["library_version"] == "5.15.1"
        assert record.calls.function == "Cache.early_initialization"


def test_a_passing_before_records_the_raise_site_and_message(records):
    for target in TARGETS:
        record = records[f"good-head-dim::before[{target}-cpu]"]
        if record.outcome == "not-run":
            continue
        assert record.outcome == "pass"
        assert record.exception.type == "ValueError"
        assert record.exception.message.startswith("`head_dim` was provided as a list of length 4")
        site = record.raise_site
        assert site.function == "Cache.early_initialization" and site.line > 0
        assert site.module.endswith("cache_utils")
        assert record.calls.count == 1 and record.calls.returned == 0


def test_a_passing_after_records_that_the_function_was_called_and_returned(records):
    for target in TARGETS:
        record = records[f"good-head-dim::after[{target}-cpu]"]
        if record.outcome == "not-run":
            continue
        assert record.outcome == "pass"
        assert record.calls.count >= 1 and record.calls.returned == record.calls.count
        assert record.exception is None and record.tampered == []


def test_upstream_raises_from_the_pinned_line(records):
    if not UPSTREAM:
        pytest.skip("transformers is not installed")
    assert records["good-head-dim::before[upstream-cpu]"].raise_site.line == 1471
    assert records["good-num-heads::before[upstream-cpu]"].raise_site.line == 1467


def test_crash_and_signal_point_at_the_snippet_line(records):
    for kind, line in (("before-crash", 10), ("before-signal", 11), ("before-os-exit", 10), ("before-sys-exit", 10)):
        record = records[f"{kind}::before[bundled-cpu]"]
        assert record.snippet_line == line, (kind, record.reason)
