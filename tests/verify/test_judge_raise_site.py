"""The judge on its own: whose frame the observer saw an error start in decides whether a wording's
`function` raised it. Observations are built by hand, so each case is exactly the one named.

A removed name's old function is watched under the API's name (`transformers.LlamaForCausalLM.
_reorder_cache`), but 4.43 - 4.53 raise from the code object `GenerationMixin._reorder_cache`: a
wording's function may name the code object's own qualified name, where the start was in the
target's watched code, and only there.
"""

from __future__ import annotations

import pytest

from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check
from errorkb.verify.records import Code, ExceptionInfo, Observation, Outcome, Start, Status, Verdict
from errorkb.verify.run import Run
from tests.verify.judging import before_check

STUB = "GenerationMixin._reorder_cache"  # the code object that raises on 4.43 - 4.53
WATCHED = "transformers.LlamaForCausalLM._reorder_cache"  # the label the old function is watched under
MESSAGE = ("Make sure that a `_reorder_cache` function is correctly implemented in transformers.models.llama."
           "modeling_llama to enable beam search for <class 'LlamaForCausalLM'>")
ENTRY = f"""\
id: reorder-cache-removed
title: A removed model helper
library: huggingface/transformers
kind: removed
api: {{owner: transformers.LlamaForCausalLM, name: _reorder_cache}}
exception: AttributeError
message: "'LlamaForCausalLM' object has no attribute '_reorder_cache'"
releases: {{raises: ">=4.43", last_good: 4.42.4}}
also_seen_as:
  - exception: NotImplementedError
    message: "Make sure that a `_reorder_cache` function is correctly implemented in {{module}} to enable beam search for {{cls}}"
    releases: ">=4.43,<4.54"
    function: {STUB}
source:
  path: src/transformers/cache_utils.py
  line: 1600
  function: Cache.reorder_cache
  implicit: true
  release: 5.15.1
"""


@pytest.fixture
def check(tmp_path) -> Check:
    return before_check(tmp_path, ENTRY, "model._reorder_cache(past, beam_idx)\n", "upstream", "4.46.1")


def judged(check: Check, **start: str) -> Verdict:
    """The verdict on a before whose NotImplementedError started as `start` says."""
    started = Start(type="NotImplementedError", qualified_type="builtins.NotImplementedError", message=MESSAGE,
                    line=1, opcode="RAISE_VARARGS", **start)
    error = ExceptionInfo(type="NotImplementedError", qualified_type="builtins.NotImplementedError",
                          message=MESSAGE, started=started)
    seen = Observation(status=Status.RAISED, exception=error)
    return judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="raised"), runtime_for("torch"))


def test_the_wording_function_may_name_the_code_object_that_raised_in_the_target(check):
    verdict = judged(check, where="target", function=WATCHED, code=STUB)
    assert (verdict.outcome, verdict.code, verdict.wording) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED, 1), \
        verdict.reason


def test_a_snippet_code_object_named_like_the_librarys_does_not_count(check):
    verdict = judged(check, where="snippet", code=STUB)  # the snippet's own class GenerationMixin
    assert (verdict.outcome, verdict.code) == (Outcome.FAIL, Code.WRONG_RAISE_SITE), verdict.reason


def test_neither_the_watched_label_nor_the_code_object_naming_the_function_fails(check):
    verdict = judged(check, where="target", function=WATCHED, code="LlamaForCausalLM.generate")
    assert (verdict.outcome, verdict.code) == (Outcome.FAIL, Code.WRONG_RAISE_SITE), verdict.reason
    assert STUB in verdict.reason


# -- round five, hole 6: an exception thrown into a watched generator's frame ---------------------------------------

IMPLICIT = """\
id: thrown-into-generator
title: An implicit error of a generator function
library: huggingface/transformers
exception: ValueError
message: "too many values to unpack (expected 2)"
source:
  path: src/transformers/cache_utils.py
  line: 1489
  function: Cache.get_seq_length
  implicit: true
  release: 5.15.1
"""


@pytest.mark.parametrize("where", ["target", "beneath"])
def test_an_error_thrown_into_the_functions_frame_is_not_raised_by_it(tmp_path, where):
    """`gen.throw(error)` (a coroutine's `throw`, an async generator's `athrow`) resumes a suspended frame with the
    snippet's exception: it starts there, at the `yield` it was suspended at, in the function's frame (or in the
    library's generator it delegates to), and an implicit entry took it for C code's under the function. Before:
    a pass."""
    check = before_check(tmp_path, IMPLICIT, "cache.get_seq_length()\n")
    message = "too many values to unpack (expected 2)"
    started = Start(function="Cache.get_seq_length", where=where, code="Cache.get_seq_length", type="ValueError",
                    qualified_type="builtins.ValueError", message=message, line=1489, opcode="YIELD_VALUE")
    error = ExceptionInfo(type="ValueError", qualified_type="builtins.ValueError", message=message, started=started)
    seen = Observation(status=Status.RAISED, exception=error)
    verdict = judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="raised"), runtime_for("torch"))
    assert (verdict.outcome, verdict.code) == (Outcome.FAIL, Code.WRONG_RAISE_SITE), verdict.reason
    assert "thrown into" in verdict.reason
    assert started.entered == "thrown"


def test_an_error_c_code_raises_in_the_function_is_still_its(tmp_path):
    """The other side: the same error started at a call in the function's frame (C code it called)."""
    check = before_check(tmp_path, IMPLICIT, "cache.get_seq_length()\n")
    message = "too many values to unpack (expected 2)"
    started = Start(function="Cache.get_seq_length", where="target", code="Cache.get_seq_length", type="ValueError",
                    qualified_type="builtins.ValueError", message=message, line=1489, opcode="UNPACK_SEQUENCE")
    error = ExceptionInfo(type="ValueError", qualified_type="builtins.ValueError", message=message, started=started)
    seen = Observation(status=Status.RAISED, exception=error)
    verdict = judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="raised"), runtime_for("torch"))
    assert verdict.outcome == Outcome.PASS, verdict.reason
    assert started.entered == "called"
