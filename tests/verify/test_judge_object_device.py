"""The judge on the narrower device claim: a pass that rests on the library's own work on the object the function
under test was called on (`DeviceBasis.OBJECT`), said so in the verdict and its record, never as the function's own.

CPU fakes only (no GPU on the machines that build this): the evidence dicts are the observer's, as
`tests/verify/test_observer_object_device.py` has it read them from a fake counter.
"""

from __future__ import annotations

import pytest

from errorkb.verify.records import Code, DeviceBasis, Outcome
from tests.verify.test_observer import judge_cuda_after
from tests.verify.test_observer_object_device import _run

OWN = {"allocated_bytes": 512, "calls": 1}
ON_OBJECT = {"allocated_bytes": 0, "calls": 0, "object_bytes": 4096, "object_calls": 1, "objects": 1}


def test_a_cuda_pass_on_the_functions_own_work_rests_on_the_call(broken_kb, tmp_path):
    verdict = judge_cuda_after(broken_kb, tmp_path, OWN | {"object_bytes": 4096, "object_calls": 1, "objects": 1})
    assert verdict.outcome is Outcome.PASS and verdict.device_basis is DeviceBasis.CALL, verdict


def test_a_cuda_pass_on_the_objects_work_alone_says_so(broken_kb, tmp_path):
    """The function allocated nothing; the library's calls on its object did: a pass, on the narrower claim, which
    the verdict names and its reason says (never "the function did device work")."""
    verdict = judge_cuda_after(broken_kb, tmp_path, ON_OBJECT)
    assert verdict.outcome is Outcome.PASS and verdict.device_basis is DeviceBasis.OBJECT, verdict
    assert "itself allocated nothing" in verdict.reason and "on the object it was called on allocated 4096 bytes" \
        in verdict.reason, verdict.reason


def test_a_cpu_pass_rests_on_no_device_evidence(broken_kb, tmp_path):
    verdict = judge_cuda_after(broken_kb, tmp_path, None, device="cpu")
    assert verdict.outcome is Outcome.PASS and verdict.device_basis is None, verdict


@pytest.mark.parametrize(("evidence", "why"), [
    ({"allocated_bytes": 0, "calls": 0, "object_bytes": 0, "object_calls": 0, "objects": 1},
     "the runtime saw no work on the cuda device"),
    ({"allocated_bytes": 0, "calls": 0, "object_bytes": 0, "object_calls": 0, "objects": 1, "object_snippet": 2},
     "2 of the library's on the object it was called on while the snippet's own code ran inside it"),
    ({"allocated_bytes": 0, "calls": 0, "object_bytes": 0, "object_calls": 0, "objects": 1, "object_planted": 1},
     "1 of the library's on the object it was called on whose arguments held C code the snippet planted"),
    ({"allocated_bytes": 0, "calls": 0, "object_bytes": 0, "object_calls": 0, "objects": 1, "object_shared": 1},
     "1 of the library's on the object it was called on while another thread the snippet started was alive"),
])
def test_no_work_of_the_objects_own_fails_saying_why(broken_kb, tmp_path, evidence, why):
    verdict = judge_cuda_after(broken_kb, tmp_path, evidence)
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.NO_DEVICE_WORK, verdict
    assert why in verdict.reason, verdict.reason


def test_the_observers_reading_of_the_snippets_hook_fails_the_cuda_after(broken_kb, tmp_path):
    """End to end on the fakes: the snippet's own hook allocated inside the library's call on the object (as a tensor
    subclass's `__torch_function__` would), and the function allocated nothing: no CUDA pass."""
    body = "def allocate(value):\n    counter['allocated'] += 1 << 20\n\n\n" \
           "store = held.Store()\nstore.put(1, hook=allocate)\nstore.size()\n"
    verdict = judge_cuda_after(broken_kb, tmp_path, _run(tmp_path, body).evidence)
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.NO_DEVICE_WORK, verdict
    honest = judge_cuda_after(broken_kb, tmp_path, _run(tmp_path, "store = held.Store()\nstore.put(1, counter)\n"
                                                                   "store.size()\n").evidence)
    assert honest.outcome is Outcome.PASS and honest.device_basis is DeviceBasis.OBJECT, honest
