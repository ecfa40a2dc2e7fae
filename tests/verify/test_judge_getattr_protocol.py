"""The judge on its own: an after (or a passing guard) of an entry whose watched function is a
`__getattr__` (torch's `Module.__getattr__`, `remote-model-without-generation-mixin`).

`__getattr__` answers "no such attribute" by raising AttributeError: `hasattr`, `getattr(x, name,
default)` and torch's own `register_parameter` ask it so, dozens of times while a model is built and
generates. Those caught AttributeErrors are its protocol, not a failure of the call: an after that
builds a model and generates must pass. The documented error itself, caught, still fails, and so does
any other exception, an AttributeError the observer could not read, or a call still running.
Observations are built by hand, so each case is exactly the one named.
"""

from __future__ import annotations

import pytest
import yaml

from errorkb.core.entry import Entry
from errorkb.core.snippets import Role, read_snippet
from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check
from errorkb.verify.records import Calls, Code, Observation, Outcome, RaisedCall, Status, Verdict
from errorkb.verify.run import Run

ENTRY = """\
id: remote-model-without-generation-mixin
title: A model class without GenerationMixin
library: huggingface/transformers
exception: AttributeError
message: "'{cls}' object has no attribute 'generate'"
targets: [upstream]
releases: {raises: ">=4.52"}
source:
  runtime: true
  implicit: true
  path: torch/nn/modules/module.py
  line: 1967
  function: %s
  module: torch.nn.modules.module
  release: 2.13.0
meaning: What it means.
trigger: When it happens.
situations: [A situation.]
solutions: [{title: A solution}]
prevention: [A prevention.]
guards:
  - {title: A guard, strategy: validation, file: guard.py, expect: {outcome: passes}}
"""
PROTOCOL = [RaisedCall(type="AttributeError", message=f"'{cls}' object has no attribute '{name}'")
            for cls, name in [("Embedding", "weight"), ("Linear", "_tp_plan"), ("TinyForCausalLM", "hf_quantizer")]]


def _check(tmp_path, function: str = "Module.__getattr__") -> Check:
    snippet = tmp_path / "after.py"
    snippet.write_text("model.generate(input_ids)\n")
    entry = Entry.model_validate(yaml.safe_load(ENTRY % function))
    return Check(entry, read_snippet(snippet, Role("after"), "after.py"), "upstream", "cpu",
                 "torch.nn.modules.module", release="5.15.1")


def judged(check: Check, raised: list[RaisedCall], count: int = 40, raised_count: int | None = None,
           running: int = 0) -> Verdict:
    unwound = len(raised) if raised_count is None else raised_count
    calls = Calls(function=check.entry.source.function, count=count, returned=count - unwound - running,
                  raised=raised, raised_count=unwound, running=running)
    seen = Observation(status=Status.RETURNED, calls=calls)
    return judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="returned"), runtime_for("torch"))


def test_attribute_errors_a_getattr_answers_with_are_its_protocol(tmp_path):
    verdict = judged(_check(tmp_path), PROTOCOL)
    assert verdict.outcome is Outcome.PASS, verdict.reason


def test_the_documented_error_caught_still_fails(tmp_path):
    documented = RaisedCall(type="AttributeError", message="'TinyForCausalLM' object has no attribute 'generate'")
    verdict = judged(_check(tmp_path), [*PROTOCOL, documented])
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.CALL_RAISED


def test_another_exception_from_getattr_still_fails(tmp_path):
    verdict = judged(_check(tmp_path), [*PROTOCOL, RaisedCall(type="RuntimeError", message="boom")])
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.CALL_RAISED


def test_raises_the_observer_did_not_read_still_fail(tmp_path):
    verdict = judged(_check(tmp_path), PROTOCOL, raised_count=len(PROTOCOL) + 5)
    assert verdict.outcome is Outcome.FAIL


def test_a_call_still_running_still_fails(tmp_path):
    verdict = judged(_check(tmp_path), PROTOCOL, running=1)
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.STILL_RUNNING


@pytest.mark.parametrize("function", ["Module.__setattr__", "Module.getattr_like"])
def test_any_other_watched_function_that_raised_fails_as_before(tmp_path, function):
    verdict = judged(_check(tmp_path, function), PROTOCOL)
    assert verdict.outcome is Outcome.FAIL and verdict.code is Code.CALL_RAISED


def test_a_class_of_the_snippets_named_attribute_error_is_not_the_protocols_answer(tmp_path):
    """Round four, hole 4: the answer was matched by its class's name; a class of the snippet's named
    AttributeError (the observer says `?.AttributeError`) unwinding the function must fail. Before: passed."""
    forged = [RaisedCall(type="AttributeError", message="'Embedding' object has no attribute 'weight'",
                         qualified_type="?.AttributeError")]
    verdict = judged(_check(tmp_path), forged)
    assert verdict.outcome is Outcome.FAIL, verdict.reason


def test_the_stream_keeps_the_qualified_name_the_observer_recorded_for_each_caught_raise():
    """The judge's identity check above has nothing to judge if the stream drops the observer's
    qualified name on the way (round four left `RaisedCall.qualified_type` unset: hole 4 stayed open)."""
    from errorkb.verify.stream import EndEvent, Stream, UnwoundEvent, _calls

    unwound = [UnwoundEvent(n=1, p=1, e="unwound", w=0, type="AttributeError", message="'Embedding' object has no "
                            "attribute 'weight'", qualified=qualified) for qualified in ("?.AttributeError",
                                                                                         "builtins.AttributeError")]
    end = EndEvent(n=3, p=1, e="end", status="returned", counts=[[2, 0]], unwound=[2])
    calls = _calls(Stream(unwound=unwound, end=end), end, [("Module.__getattr__", "function")], "function")
    assert calls is not None
    assert [one.qualified_type for one in calls.raised] == ["?.AttributeError", "builtins.AttributeError"]
