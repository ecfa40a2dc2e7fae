"""The judge on its own: "raises ValueError" means Python's own ValueError, by identity, never a class of the
snippet's that is named so. Observations are built by hand, so each case is exactly the one named.

A snippet's `class TypeError(TypeError, UserWarning)`, raised by C code it planted under the function
(`warnings.warn` as an error, a `functools.partial` set as an argument's `__len__`), started in the function's
own frame with the documented text, and the judge compared only the class's name: a pass for an error the
library never raised. The observer reports the qualified name `builtins.X` only for Python's own class
(`observer._p_qualified`); the judge asks for it wherever the expected name is a builtin exception's.
"""

from __future__ import annotations

import pytest

from errorkb.plugs import runtime_for
from errorkb.verify.judge import judge, same_type
from errorkb.verify.plan import Check
from errorkb.verify.records import Code, ExceptionInfo, Observation, Outcome, RaisedCall, Start, Status, Verdict
from errorkb.verify.run import Run
from tests.verify.judging import before_check

MESSAGE = "len() of a 0-d tensor"
ENTRY = f"""\
id: early-init-zero-dim-tensor
title: A size passed as a tensor
library: huggingface/transformers
exception: TypeError
message: "{MESSAGE}"
source:
  path: src/transformers/cache_utils.py
  line: 1466
  function: Cache.early_initialization
  implicit: true
  release: 5.15.1
"""


@pytest.fixture
def check(tmp_path) -> Check:
    return before_check(tmp_path, ENTRY, "cache.early_initialization(1, heads, 64, None, 'cpu')\n")


def judged(check: Check, qualified: str | None) -> Verdict:
    """The verdict on a before whose TypeError started in the function's own frame, from C code it called."""
    started = Start(type="TypeError", qualified_type=qualified, message=MESSAGE, line=1466, opcode="CALL",
                    where="target", function="Cache.early_initialization", code="Cache.early_initialization")
    error = ExceptionInfo(type="TypeError", qualified_type=qualified, message=MESSAGE, started=started)
    seen = Observation(status=Status.RAISED, exception=error)
    return judge(check, Run(seen, 0, False, "", 0, 0.1, 10, ended=True, end_status="raised"), runtime_for("torch"))


def test_pythons_own_exception_class_is_the_documented_one(check):
    verdict = judged(check, "builtins.TypeError")
    assert (verdict.outcome, verdict.code) == (Outcome.PASS, Code.RAISED_AS_DOCUMENTED), verdict.reason


@pytest.mark.parametrize("qualified", ["__main__.TypeError", "?.TypeError", None])
def test_a_class_of_the_snippets_named_like_a_builtin_is_not_it(check, qualified):
    """Before: passed ("raised TypeError from Cache.early_initialization")."""
    verdict = judged(check, qualified)
    assert (verdict.outcome, verdict.code) == (Outcome.FAIL, Code.WRONG_EXCEPTION), verdict.reason
    assert "not Python's TypeError" in verdict.reason, verdict.reason


def test_a_name_no_builtin_has_is_still_matched_by_name():
    """A guard's own exception class (defined in its snippet) is named by its name alone, as before; a record
    that carries no qualified name (a call's unwinding, where it only ever fails a check) by its name."""
    assert same_type("CacheTooSmall", ExceptionInfo(type="CacheTooSmall", qualified_type="__main__.CacheTooSmall"))
    assert not same_type("AttributeError", ExceptionInfo(type="AttributeError",
                                                         qualified_type="__main__.AttributeError"))
    assert same_type("AttributeError", ExceptionInfo(type="AttributeError", qualified_type="builtins.AttributeError"))
    assert same_type("ValueError", RaisedCall(type="ValueError", message="x"))


# -- round four: a class outside the builtins, and a call's unwinding, by identity too -------------------------

@pytest.mark.parametrize("qualified", ["?.CacheError", "__main__.CacheError", None])
def test_a_dotted_name_is_not_matched_by_the_module_a_class_claims(qualified):
    """`pkg.Error` was matched by `__module__` (the snippet's to claim: `?.` is what the observer says of a class
    no trusted module defines) or, with the package alone, by the name. Before: "?.CacheError" and None failed,
    but a claimed "transformers.CacheError" matched; now only the name the observer vouches for does."""
    assert not same_type("transformers.CacheError", ExceptionInfo(type="CacheError", qualified_type=qualified))
    assert same_type("transformers.CacheError", ExceptionInfo(type="CacheError",
                                                              qualified_type="transformers.CacheError"))
    assert same_type("transformers.CacheError", ExceptionInfo(type="CacheError",
                                                              qualified_type="transformers.cache_utils.CacheError"))


@pytest.mark.parametrize("qualified", ["?.CacheError", None])
def test_a_before_does_not_match_a_non_builtin_name_on_a_class_no_trusted_module_defines(qualified):
    """An entry's undotted non-builtin exception (`CacheError`) was matched by the name alone: a snippet's class
    so named, thrown by C code it called, matched. A before's exception is judged strictly (a guard's own class,
    defined in its snippet, is still named by its name). Before: True."""
    assert not same_type("CacheError", ExceptionInfo(type="CacheError", qualified_type=qualified), strict=True)
    assert same_type("CacheError", ExceptionInfo(type="CacheError", qualified_type="lib.CacheError"), strict=True)
    assert same_type("CacheError", ExceptionInfo(type="CacheError", qualified_type="?.CacheError"))


def test_a_calls_unwinding_names_a_builtin_by_identity_where_it_says_so():
    """A `RaisedCall` now carries the observer's qualified name: a class of the snippet's named AttributeError is
    not Python's (hole 4: the `__getattr__` protocol answer). Where none was recorded, the name alone, as before."""
    assert not same_type("AttributeError", RaisedCall(type="AttributeError", message="x",
                                                      qualified_type="?.AttributeError"))
    assert same_type("AttributeError", RaisedCall(type="AttributeError", message="x",
                                                  qualified_type="builtins.AttributeError"))
