"""One verdict per check, from one decision ladder.

The ladder reads top to bottom: process-level failures first (no device, a dead worker,
timeout, runaway output, a crash or other death by signal, a snippet that never reported),
then snippet-level ones (syntax, tampering, `sys.exit`, `os._exit`), then what the snippet's
role demands. The first rung that applies decides. A pass is only ever returned by the last
rung of a role, after every check of that role held: nothing passes by default.

`expected` and `actual` put the two sides in one line each, for the failure view and the report.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from errorkb.core.message import MessageTemplate
from errorkb.verify.plan import Check
from errorkb.verify.run import Run

PASS, FAIL, NOT_RUN = "pass", "fail", "not-run"


@dataclass(frozen=True)
class Verdict:
    outcome: str  # pass | fail | not-run
    reason: str


def judge(check: Check, run: Run) -> Verdict:
    seen = run.observation
    status = seen.get("status")
    function = check.entry.source.function
    if status == "no-device":
        return Verdict(NOT_RUN, "no CUDA device")
    if status == "worker-died":
        return Verdict(FAIL, f"the verifier's worker died, so the check did not complete: {seen.get('error')}")
    if run.timed_out:
        return Verdict(FAIL, f"timed out after {run.timeout_s:g} s (the process group was killed)")
    if run.output_size >= run.output_cap:
        return Verdict(FAIL, f"printed more than the {run.output_cap} bytes a check may print (stopped)")
    if not seen:
        where = _at(crash_line(check, run))
        if run.signal in CRASH_SIGNALS:
            return Verdict(FAIL, f"crashed with {run.signal}{where}")
        if run.signal:
            return Verdict(FAIL, f"killed by {run.signal}{where}")
        return Verdict(FAIL, f"exited with status {run.returncode} without reporting{where}")
    if status == "setup-failed":
        return Verdict(FAIL, f"could not load the target: {seen.get('error')}")
    if status == "no-function":
        return Verdict(FAIL, f"source.function: {seen.get('error')}")
    if status == "syntax-error":
        error = seen["exception"]
        return Verdict(FAIL, f"SyntaxError at line {error['snippet_line']}, column {error['snippet_col']}: "
                             f"{error['message']}")
    if seen.get("tampered"):
        return Verdict(FAIL, f"the snippet replaced {', '.join(seen['tampered'])}, so the real {function} "
                             "was not verified")
    if status == "sys-exit":
        return Verdict(FAIL, f"called sys.exit({seen.get('exit_code')}){_at(snippet_line(check, run))}")
    if status == "os-exit":
        return Verdict(FAIL, f"called os._exit({seen.get('exit_code')}){_at(snippet_line(check, run))}")
    if check.kind == "before":
        return _judge_before(check, seen)
    if check.kind == "after":
        return _judge_after(check, seen)
    return _judge_guard(check, seen)


CRASH_SIGNALS = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"}


def crash_line(check: Check, run: Run) -> int | None:
    """The snippet line a crash happened on, from the faulthandler dump in the output."""
    found = re.findall(rf'File "{re.escape(str(check.snippet.resolve()))}", line (\d+)', run.output)
    return int(found[0]) if found else None  # faulthandler lists the most recent call first


def snippet_line(check: Check, run: Run) -> int | None:
    """Where in the snippet the outcome happened, when anything says so."""
    line = (run.observation.get("exception") or {}).get("snippet_line")
    return line if line is not None else crash_line(check, run)


def expected(check: Check) -> str:
    """What this check's role demands, in one line, for the failure view and the report."""
    entry = check.entry
    function = entry.source.function
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
    status = seen.get("status")
    error = seen.get("exception") or {}
    if status in ("raised", "sys-exit") and error.get("type"):
        site = error.get("raise_site") or error.get("origin") or {}
        where = f"  (from {site['function']}, line {site['line']})" if site else ""
        return f"raised {error['type']}: {error.get('message', '')}{where}"
    if status == "returned":
        calls = seen.get("calls") or {}
        return (f"exited normally; {calls.get('function', 'the function')} called {calls.get('count', 0)}×, "
                f"returned {calls.get('returned', 0)}×")
    if status == "syntax-error":
        return f"SyntaxError: {error.get('message')}"
    if status == "os-exit":
        return f"os._exit({seen.get('exit_code')})"
    if run.timed_out:
        return "still running at the timeout"
    if run.signal:
        return f"killed by {run.signal}"
    if seen.get("error"):
        return str(seen["error"])
    return f"exit status {run.returncode}, no observation"


def _at(line: int | None) -> str:
    return f" at line {line}" if line else ""


def _judge_before(check: Check, seen: dict) -> Verdict:
    entry = check.entry
    function = entry.source.function
    if seen["status"] == "returned":
        if _documented_error_raised(check, seen):
            return Verdict(FAIL, f"{function} raised {entry.exception}, but the snippet caught it; "
                                 "let the error propagate")
        return Verdict(FAIL, f"exited normally; expected {entry.exception} from {function}")
    error = seen["exception"]
    if not same_type(entry.exception, error):
        return Verdict(FAIL, f"raised {error['type']}: {_first_line(error['message'])}; expected {entry.exception}")
    values = entry.template.match(error["message"])
    if values is None:
        return Verdict(FAIL, f"message differs\n  expected: {entry.message}\n  actual:   {error['message']}")
    site = error.get("raise_site")
    if site is None or site["function"] != function:
        where = f"{site['function']} (line {site['line']})" if site else _origin(error)
        return Verdict(FAIL, f"raised from {where}; expected {function}")
    for placeholder, expected in entry.expect.placeholders.items():
        if placeholder not in values:
            return Verdict(FAIL, f"expect.placeholders names '{{{placeholder}}}', which the message does not have")
        if values[placeholder] != expected:
            return Verdict(FAIL, f"placeholder {{{placeholder}}} is {values[placeholder]!r}; expected {expected!r}")
    return Verdict(PASS, f"raised {entry.exception} from {function} (line {site['line']})")


def _judge_after(check: Check, seen: dict) -> Verdict:
    function = check.entry.source.function
    calls = seen.get("calls") or {}
    if seen["status"] == "raised":
        error = seen["exception"]
        again = " (the documented error, still)" if _is_documented(check, error) else ""
        return Verdict(FAIL, f"raised {error['type']}: {_first_line(error['message'])}{again}")
    failed = _clean_run_failure(check, seen, "a fix must go through the same API")
    return failed or Verdict(PASS, f"called {function} {calls['count']}× and every call returned")


def _clean_run_failure(check: Check, seen: dict, why_call: str) -> Verdict | None:
    """The rungs an after and a passing guard share once the snippet itself exited normally:
    it called the function, every call returned, and on CUDA it really used the device."""
    function = check.entry.source.function
    calls = seen.get("calls") or {}
    if not calls.get("count"):
        return Verdict(FAIL, f"never called {function}; {why_call}")
    if calls.get("raised"):
        error = calls["raised"][0]
        return Verdict(FAIL, f"{function} raised {error['type']} inside the snippet (caught): "
                             f"{_first_line(error['message'])}")
    if check.device == "cuda" and not (seen.get("cuda") or {}).get("peak_bytes"):
        return Verdict(FAIL, "no CUDA memory was allocated, so this was not a CUDA check")
    return None


def _judge_guard(check: Check, seen: dict) -> Verdict:
    expect = check.guard
    assert expect is not None
    function = check.entry.source.function
    calls = seen.get("calls") or {}
    if _documented_error_raised(check, seen):
        return Verdict(FAIL, f"let the documented {check.entry.exception} through from {function}")
    if expect.outcome == "passes":
        if seen["status"] == "raised":
            error = seen["exception"]
            return Verdict(FAIL, f"raised {error['type']}: {_first_line(error['message'])}; expected to run clean")
        failed = _clean_run_failure(check, seen, "a guard that passes must still make the call")
        return failed or Verdict(PASS, f"ran clean; {function} called {calls['count']}×, every call returned")
    if seen["status"] == "returned":
        return Verdict(FAIL, f"exited normally; expected the guard's own {expect.exception}")
    error = seen["exception"]
    if not same_type(expect.exception or "", error):
        return Verdict(FAIL, f"raised {error['type']}: {_first_line(error['message'])}; "
                             f"expected the guard's own {expect.exception}")
    if expect.message is not None and MessageTemplate.parse(expect.message).match(error["message"]) is None:
        return Verdict(FAIL, f"guard message differs\n  expected: {expect.message}\n  actual:   {error['message']}")
    return Verdict(PASS, f"stopped the call early with its own {error['type']}")


def same_type(expected: str, error: dict) -> bool:
    """`ValueError` names the class; `torch.OutOfMemoryError` also pins its package."""
    if "." not in expected:
        return error["type"] == expected
    qualified = error.get("qualified_type", "")
    package, name = expected.split(".")[0], expected.rsplit(".", 1)[-1]
    return qualified == expected or (qualified.split(".")[0] == package and error["type"] == name)


def _is_documented(check: Check, error: dict) -> bool:
    return same_type(check.entry.exception, error) and check.entry.template.match(error["message"]) is not None


def _documented_error_raised(check: Check, seen: dict) -> bool:
    """Did `source.function` itself raise the entry's error during the run (caught or not)?"""
    raised = (seen.get("calls") or {}).get("raised", [])
    return any(_is_documented(check, error) for error in raised)


def _origin(error: dict) -> str:
    origin = error.get("origin")
    if not origin:
        return "an unknown place"
    return f"{origin['function']} ({origin['file'].rsplit('/', 1)[-1]}:{origin['line']}), outside the target"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "(no message)"
