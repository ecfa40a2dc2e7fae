"""The judge on its own: an entry with `source.user_code` (Python raises the error in the user's own code that the
function calls: a remote model's method unpacking what the library returned). Observations are built by hand.

"Python raises it" is an instruction of the user's code failing (`UNPACK_SEQUENCE`, `LOAD_ATTR`), not C code that
code calls: an exhausted generator's `throw`, `warnings.warn` as an error, `codecs.strict_errors`, a C future's
`result` raise whatever they are given, from the calling frame, with no frame of their own (round four, hole 1:
the c-gadget-raise class, closed for the library's functions, was open here).
"""

from __future__ import annotations

import pytest

from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge
from errorkb.verify.plan import Check
from errorkb.verify.records import Code, ExceptionInfo, Observation, Outcome, Start, Status, Verdict
from errorkb.verify.run import Run
from tests.verify.judging import before_check

MESSAGE = "too many values to unpack (expected 2)"
ENTRY = f"""\
id: user-code-unpack
title: User code unpacking what the library returned
library: huggingface/transformers
exception: ValueError
message: "{MESSAGE}"
source:
  commit: a597f974857b3d92939971296bc0deb93d33d780
  path: src/transformers/cache_utils.py
  line: 1489
  function: Cache.get_seq_length
  implicit: true
  user_code: true
  release: 5.15.1
"""


@pytest.fixture
def check(tmp_path) -> Check:
    return before_check(tmp_path, ENTRY, "Mine().get_seq_length()\n")


def judged(check: Check, opcode: str) -> Verdict:
    """A ValueError that started in the snippet's own `Layers.__getitem__`, which the function called."""
    started = Start(type="ValueError", qualified_type="builtins.ValueError", message=MESSAGE, line=8, opcode=opcode,
                    where="snippet", code="Layers.__getitem__", through=["Cache.get_seq_length"])
    error = ExceptionInfo(type="ValueError", qualified_type="builtins.ValueError", message=MESSAGE, started=started)
    seen = Observation(status=Status.RAISED, exception=error)
    return judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="raised"), runtime_for("torch"))


@pytest.mark.parametrize("opcode", ["UNPACK_SEQUENCE", "LOAD_ATTR", "BINARY_SUBSCR"])
def test_an_instruction_of_the_users_code_that_fails_is_python_raising_it(check, opcode):
    verdict = judged(check, opcode)
    assert (verdict.outcome, verdict.code) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED), verdict.reason


@pytest.mark.parametrize("opcode", ["CALL", "CALL_FUNCTION_EX", "PRECALL", "CALL_KW"])
def test_c_code_the_users_code_calls_is_not_python_raising_it(check, opcode):
    """`spent.throw(ValueError, "too many values to unpack (expected 2)")` in the snippet's own method. Before:
    passed ("raised ValueError by Python in Layers.__getitem__")."""
    verdict = judged(check, opcode)
    assert (verdict.outcome, verdict.code) == (Outcome.FAIL, Code.WRONG_RAISE_SITE), verdict.reason
    assert "called" in verdict.reason, verdict.reason
