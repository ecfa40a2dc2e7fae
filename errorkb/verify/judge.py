"""One verdict per check, from one decision ladder.

The ladder reads top to bottom: process-level failures first (a dead worker, timeout, runaway
output, a crash or other death by signal, a snippet that never reported or reported garbage,
no device), then snippet-level ones (setup, syntax, tampering, `sys.exit`, `os._exit`), then
what the snippet's role demands. The first rung that applies decides. A pass is only ever
returned by the last rung of a role, after every check of that role held: nothing passes by
default. Every verdict carries a `Code`; the reason is for people only.

`expected` and `actual` put the two sides in one line each, for the failure view and the report.
"""

from __future__ import annotations

import re

from errorkb.core.entry import Wording
from errorkb.core.message import MessageTemplate
from errorkb.plugs import Runtime
from errorkb.verify.plan import Check
from errorkb.verify.records import Code, ExceptionInfo, Observation, Outcome, RaisedCall, Status, Verdict, not_run
from errorkb.verify.run import Run

CRASH_SIGNALS = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"}


def _fail(code: Code, reason: str, cacheable: bool = True) -> Verdict:
    return Verdict(outcome=Outcome.FAIL, code=code, reason=reason, cacheable=cacheable)


def _pass(code: Code, reason: str) -> Verdict:
    return Verdict(outcome=Outcome.PASS, code=code, reason=reason)


def judge(check: Check, run: Run, runtime: Runtime) -> Verdict:
    seen = run.observation
    function = check.entry.source.function
    status = seen.status if seen else None
    if status is Status.NO_DEVICE:
        return not_run(Code.NO_DEVICE, f"no {check.device} device")
    if status is Status.WORKER_DIED and seen is not None:
        return _fail(Code.WORKER_DIED, f"the verifier's worker died, so the check did not complete: {seen.error}",
                     cacheable=False)
    if run.timed_out:
        return _fail(Code.TIMEOUT, f"timed out after {run.timeout_s:g} s (the process group was killed)",
                     cacheable=False)
    if run.output_size >= run.output_cap:
        return _fail(Code.OUTPUT_CAP, f"printed more than the {run.output_cap} bytes a check may print (stopped)")
    if seen is None:
        where = _at(crash_line(check, run))
        if run.malformed:
            return _fail(Code.MALFORMED_OBSERVATION, f"the check's process left a {run.malformed}{where}")
        if run.signal in CRASH_SIGNALS:
            return _fail(Code.CRASHED, f"crashed with {run.signal}{where}")
        if run.signal:  # SIGKILL may be the machine's OOM killer: not the snippet's doing for sure
            return _fail(Code.KILLED, f"killed by {run.signal}{where}", cacheable=run.signal != "SIGKILL")
        return _fail(Code.NO_OBSERVATION, f"exited with status {run.returncode} without reporting{where}")
    if status is Status.SETUP_FAILED:
        return _fail(Code.SETUP_FAILED, f"could not load the target: {seen.error}")
    if status is Status.NO_FUNCTION:
        return _fail(Code.NO_FUNCTION, f"source.function: {seen.error}")
    if status is Status.SYNTAX_ERROR:
        error = seen.exception or ExceptionInfo(type="SyntaxError")
        return _fail(Code.SYNTAX_ERROR, f"{error.type} at line {error.snippet_line}, column {error.snippet_col}: "
                                        f"{error.message}")
    if seen.tampered:
        return _fail(Code.TAMPERED, f"the snippet replaced {', '.join(seen.tampered)}, so the real {function} "
                                    "was not verified")
    if status is Status.SYS_EXIT:
        return _fail(Code.SYS_EXIT, f"called sys.exit({seen.exit_code}){_at(snippet_line(check, run))}")
    if status is Status.OS_EXIT:
        return _fail(Code.OS_EXIT, f"called os._exit({seen.exit_code}){_at(snippet_line(check, run))}")
    if check.kind == "before":
        return _judge_before(check, seen)
    if check.kind == "after":
        return _judge_after(check, seen, runtime)
    return _judge_guard(check, seen, runtime)


def crash_line(check: Check, run: Run) -> int | None:
    """The snippet line a crash happened on, from the faulthandler dump in the output."""
    found = re.findall(rf'File "{re.escape(str(check.snippet.path.resolve()))}", line (\d+)', run.output)
    return int(found[0]) if found else None  # faulthandler lists the most recent call first


def snippet_line(check: Check, run: Run) -> int | None:
    """Where in the snippet the outcome happened, when anything says so."""
    error = run.observation.exception if run.observation else None
    line = error.snippet_line if error else None
    return line if line is not None else crash_line(check, run)


def expected(check: Check) -> str:
    """What this check's role demands, in one line, for the failure view and the report."""
    entry = check.entry
    function = entry.source.function
    if check.kind == "before" and entry.api is not None:
        api = f"{entry.api.owner}.{entry.api.name}"
        how = "which the library no longer has" if entry.kind == "removed" else "called as it no longer accepts"
        return f"raises {entry.exception}: {entry.message}  (at a use of {api}, {how})"
    if check.kind == "before":
        return f"raises {entry.exception}: {entry.message}  (from {function})"
    if check.kind == "after":
        return f"exits normally, having called {function} with every call returning"
    guard = check.guard
    assert guard is not None
    if guard.outcome == "passes":
        return f"exits normally, having called {function}; never lets {entry.exception} through"
    return f"raises its own {guard.exception}" + (f": {guard.message}" if guard.message else "")


def actual(check: Check, run: Run) -> str:
    """What happened, in one line: the other half of `expected`."""
    seen = run.observation
    error = seen.exception if seen else None
    status = seen.status if seen else None
    if status in (Status.RAISED, Status.SYS_EXIT) and error is not None:
        site = error.raise_site or error.origin
        where = f"  (from {site.function}, line {site.line})" if site else ""
        return f"raised {error.type}: {error.message}{where}"
    if status is Status.RETURNED and seen is not None:
        calls = seen.calls
        name = calls.function if calls else "the function"
        return (f"exited normally; {name} called {calls.count if calls else 0}×, "
                f"returned {calls.returned if calls else 0}×")
    if status is Status.SYNTAX_ERROR and error is not None:
        return f"SyntaxError: {error.message}"
    if status is Status.OS_EXIT and seen is not None:
        return f"os._exit({seen.exit_code})"
    if run.timed_out:
        return "still running at the timeout"
    if run.signal:
        return f"killed by {run.signal}"
    if seen is not None and seen.error:
        return seen.error
    if run.malformed:
        return run.malformed
    return f"exit status {run.returncode}, no observation"


def _at(line: int | None) -> str:
    return f" at line {line}" if line else ""


def _judge_before(check: Check, seen: Observation) -> Verdict:
    entry = check.entry
    function = entry.source.function if entry.kind == "raise" else f"{entry.api.owner}.{entry.api.name}" \
        if entry.api else entry.source.function
    if seen.status is Status.RETURNED or seen.exception is None:
        if _documented_error_raised(check, seen):
            return _fail(Code.CAUGHT_DOCUMENTED_ERROR, f"{function} raised {entry.exception}, but the snippet caught "
                                                       "it; let the error propagate")
        old = seen.old_calls
        if old is not None and old.count and old.returned == old.count:
            return _fail(Code.OLD_API_RAN, f"exited normally: {old.function} still exists here and ran "
                                           f"({old.count}×, every call returned)")
        return _fail(Code.EXITED_NORMALLY, f"exited normally; expected {entry.exception} from {function}")
    error = seen.exception
    wordings = entry.wordings(check.release, check.device)
    typed = [(index, wording) for index, wording in wordings if same_type(wording.exception or entry.exception, error)]
    if not typed:
        expected_types = " or ".join(sorted({w.exception or entry.exception for _, w in wordings}))
        return _fail(Code.WRONG_EXCEPTION, f"raised {error.type}: {_first_line(error.message)}; "
                                           f"expected {expected_types}")
    matched = [(index, wording, values) for index, wording in typed
               if (values := wording.template.match(error.message)) is not None]
    if not matched:
        others = f" (nor any of its {len(typed) - 1} other wordings here)" if len(typed) > 1 else ""
        shown = typed[0][1].message
        return _fail(Code.MESSAGE_DIFFERS, f"message differs{others}\n  expected: {shown}\n  actual:   {error.message}")
    # The same words may come from another function in other releases (a wording with its own
    # `function`): the first wording that is also raised where it says counts.
    misplaced = [_misplaced(check, error, wording) for _, wording, _ in matched]
    if None not in misplaced:
        return misplaced[0]  # type: ignore[return-value]
    index, wording, values = matched[misplaced.index(None)]
    if index == 0:
        for placeholder, wanted in entry.expect.placeholders.items():
            if placeholder not in values:
                return _fail(Code.PLACEHOLDER_DIFFERS,
                             f"expect.placeholders names '{{{placeholder}}}', which the message does not have")
            if values[placeholder] != wanted:
                return _fail(Code.PLACEHOLDER_DIFFERS,
                             f"placeholder {{{placeholder}}} is {values[placeholder]!r}; expected {wanted!r}")
    where = f"from {wording.function} (line {error.raise_site.line})" if wording.function and error.raise_site \
        else f"at the use of {function}"
    worded = "" if index == 0 else f", as worded {_worded(wording)}"
    return Verdict(outcome=Outcome.PASS, code=Code.RAISED_AS_DOCUMENTED,
                   reason=f"raised {error.type} {where}{worded}", wording=index)


def _misplaced(check: Check, error: ExceptionInfo, wording: Wording) -> Verdict | None:
    """Why the matching error does not count as the documented one, by where and how it was raised."""
    entry = check.entry
    if wording.function is not None:  # raised by the library's own function (a raise, or under it)
        site = error.raise_site
        if site is None or site.function != wording.function:
            where = f"{site.function} (line {site.line})" if site else _origin(error)
            return _fail(Code.WRONG_RAISE_SITE, f"raised from {where}; expected {wording.function}")
        return None
    if entry.kind in ("removed", "signature") and entry.api is not None:
        facts = error.api
        api = f"{entry.api.owner}.{entry.api.name}"
        if facts is None or facts.via is None:
            return _fail(Code.NOT_THE_LIBRARY, f"the {error.type} was not raised by Python at a use of {api} "
                                               f"(instruction: {error.opcode or 'unknown'})")
        if not facts.owner_is_target:
            return _fail(Code.NOT_THE_LIBRARY, f"the {error.type} concerns an object that is not the library's "
                                               f"{entry.api.owner}")
        if entry.kind == "removed" and (facts.name != entry.api.name or not facts.absent_in_target):
            why = f"it concerns '{facts.name}'" if facts.name != entry.api.name else \
                f"the library's {entry.api.owner} still has '{entry.api.name}'"
            return _fail(Code.NOT_THE_LIBRARY, f"not the removed {api}: {why}")
        return None
    if error.opcode in ("RAISE_VARARGS", "RERAISE", None) or not (error.in_snippet or error.raise_site):
        return _fail(Code.WRONG_RAISE_SITE, f"the {error.type} was raised by a `raise` or outside the snippet and the "
                                            "library, not by Python at the snippet's use of the library")
    return None


def _worded(wording: Wording) -> str:
    where = [part for part in (f"in {wording.releases}" if wording.releases else "",
                               f"on {wording.device}" if wording.device else "") if part]
    return " ".join(where) or "otherwise"


def _judge_after(check: Check, seen: Observation, runtime: Runtime) -> Verdict:
    function = check.entry.source.function
    if seen.status is Status.RAISED and seen.exception is not None:
        error = seen.exception
        again = " (the documented error, still)" if _is_documented(check, error) else ""
        return _fail(Code.RAISED, f"raised {error.type}: {_first_line(error.message)}{again}")
    failed = _clean_run_failure(check, seen, runtime, "a fix must go through the same API")
    count = seen.calls.count if seen.calls else 0
    return failed or _pass(Code.RAN_CLEAN, f"called {function} {count}× and every call returned")


def _clean_run_failure(check: Check, seen: Observation, runtime: Runtime, why_call: str) -> Verdict | None:
    """The rungs an after and a passing guard share once the snippet itself exited normally:
    it called the function, every call returned, and on a device it really used the device."""
    function = check.entry.source.function
    calls = seen.calls
    if calls is None or not calls.count:
        return _fail(Code.NEVER_CALLED, f"never called {function}; {why_call}")
    if calls.raised:
        error = calls.raised[0]
        return _fail(Code.CALL_RAISED, f"{function} raised {error.type} inside the snippet (caught): "
                                       f"{_first_line(error.message)}")
    if not runtime.device_used(check.device, seen.evidence):
        return _fail(Code.NO_DEVICE_WORK, f"the runtime saw no work on the {check.device} device, so this was not "
                                          f"a {check.device} check")
    return None


def _judge_guard(check: Check, seen: Observation, runtime: Runtime) -> Verdict:
    expect = check.guard
    assert expect is not None
    function = check.entry.source.function
    if _documented_error_raised(check, seen):
        return _fail(Code.LET_ERROR_THROUGH, f"let the documented {check.entry.exception} through from {function}")
    error = seen.exception
    if expect.outcome == "passes":
        if seen.status is Status.RAISED and error is not None:
            return _fail(Code.RAISED, f"raised {error.type}: {_first_line(error.message)}; expected to run clean")
        failed = _clean_run_failure(check, seen, runtime, "a guard that passes must still make the call")
        count = seen.calls.count if seen.calls else 0
        return failed or _pass(Code.RAN_CLEAN, f"ran clean; {function} called {count}×, every call returned")
    if seen.status is Status.RETURNED or error is None:
        return _fail(Code.EXITED_NORMALLY, f"exited normally; expected the guard's own {expect.exception}")
    if not same_type(expect.exception or "", error):
        return _fail(Code.WRONG_EXCEPTION, f"raised {error.type}: {_first_line(error.message)}; "
                                           f"expected the guard's own {expect.exception}")
    if expect.message is not None and MessageTemplate.parse(expect.message).match(error.message) is None:
        return _fail(Code.MESSAGE_DIFFERS,
                     f"guard message differs\n  expected: {expect.message}\n  actual:   {error.message}")
    return _pass(Code.STOPPED_EARLY, f"stopped the call early with its own {error.type}")


def same_type(expected: str, error: ExceptionInfo | RaisedCall) -> bool:
    """`ValueError` names the class; `pkg.SomeError` also pins its package."""
    if "." not in expected:
        return error.type == expected
    qualified = getattr(error, "qualified_type", None) or ""
    package, name = expected.split(".")[0], expected.rsplit(".", 1)[-1]
    return qualified == expected or (qualified.split(".")[0] == package and error.type == name)


def _is_documented(check: Check, error: ExceptionInfo | RaisedCall) -> bool:
    return same_type(check.entry.exception, error) and check.entry.template.match(error.message) is not None


def _documented_error_raised(check: Check, seen: Observation) -> bool:
    """Did `source.function` itself raise the entry's error during the run (caught or not)?"""
    raised = seen.calls.raised if seen.calls else []
    return any(_is_documented(check, error) for error in raised)


def _origin(error: ExceptionInfo) -> str:
    origin = error.origin
    if not origin:
        return "an unknown place"
    return f"{origin.function} ({origin.file.rsplit('/', 1)[-1]}:{origin.line}), outside the target"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "(no message)"
