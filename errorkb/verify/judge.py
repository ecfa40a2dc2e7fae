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

import builtins
import re
from typing import TYPE_CHECKING

from errorkb.core.entry import Wording
from errorkb.core.message import MessageTemplate
from errorkb.plugs import Runtime
from errorkb.verify.plan import Check, Claim
from errorkb.verify.records import (
    WORDED,
    Calls,
    Code,
    DeviceBasis,
    ExceptionInfo,
    Observation,
    Outcome,
    RaisedCall,
    Start,
    Status,
    Verdict,
    Worded,
    not_run,
)

if TYPE_CHECKING:
    from errorkb.verify.run import Run

CRASH_SIGNALS = {"SIGSEGV", "SIGBUS", "SIGILL", "SIGFPE", "SIGABRT"}


def _fail(code: Code, reason: str, cacheable: bool = True) -> Verdict:
    return Verdict(outcome=Outcome.FAIL, code=code, reason=reason, cacheable=cacheable)


def _pass(code: Code, reason: str, basis: DeviceBasis | None = None, on: str = "") -> Verdict:
    return Verdict(outcome=Outcome.PASS, code=code, reason=reason + on, device_basis=basis)


def judge(check: Check, run: Run, runtime: Runtime) -> Verdict:
    """The verdict for `check`'s `run`; where its memory bound ended it, the reason names that bound."""
    verdict = _judge(check, run, runtime)
    if verdict.outcome != Outcome.PASS and run.memory_bound and _memory_ended(run):
        return verdict.model_copy(update={"reason": f"{verdict.reason} ({_MEMORY_WORDS[run.memory_bound]})"})
    return verdict


# How each memory bound (`sandbox.MEMORY_KINDS`) is named where it ended a check.
_MEMORY_WORDS = {
    "cgroup v2": "its memory bound: a cgroup v2 memory limit on all its processes together",
    "cgroup v1": "its memory bound: a cgroup v1 memory limit on all its processes together",
    "rlimit": "its memory bound: each process's address space alone (RLIMIT_AS), no memory cgroup",
    "none": "no memory bound applied to it here",
}


def _memory_ended(run: Run) -> bool:
    """Its memory bound ended it: its cgroup's limit killed a process, or an allocation failed (MemoryError, as
    RLIMIT_AS makes it). A bare SIGKILL is not named so: a cgroup's kill is counted (`out_of_memory`), RLIMIT_AS
    sends none, and the snippet may have sent it itself."""
    error = run.observation.exception if run.observation else None
    return bool(run.out_of_memory) or (error is not None and error.type == "MemoryError")


def _judge(check: Check, run: Run, runtime: Runtime) -> Verdict:
    if check.unallowed:  # the allow-list first: a snippet that reaches for a primitive unannounced gets no badge
        more = f" (and {len(check.unallowed) - 1} more)" if len(check.unallowed) > 1 else ""
        return _fail(Code.UNALLOWED, f"uses a primitive snippets may not use without an allowance: "
                                     f"{check.unallowed[0]}{more}; allow it in the entry (allow: [{{primitive: "
                                     "NAME, reason: ...}]), or remove it")
    seen = run.observation
    function = check.entry.source.function
    status = seen.status if seen else None
    if status is Status.NO_DEVICE:
        return not_run(Code.NO_DEVICE, f"no {check.device} device")
    if status is Status.WORKER_DIED and seen is not None:
        return _fail(Code.WORKER_DIED, f"the verifier's worker died, so the check did not complete: {seen.error}",
                     cacheable=False)
    if run.timed_out:
        used = f"; it had used {run.cpu_s:.1f} s of CPU time" if run.cpu_s is not None else ""
        return _fail(Code.TIMEOUT, f"timed out: still running after the {run.wall_limit_s or run.timeout_s:g} s "
                                   f"wall-clock backstop (its limit is {run.timeout_s:g} s of CPU time{used}); "
                                   "the process group was killed", cacheable=False)
    if run.out_of_memory:  # the jail saw its memory cgroup's limit kill one of its processes
        return _fail(Code.KILLED, run.out_of_memory, cacheable=False)  # the limit is the run's setting, not the key's
    if _out_of_cpu(run):
        return _fail(Code.TIMEOUT, f"timed out: used its {run.timeout_s:g} s of CPU time (killed by {run.signal})",
                     cacheable=False)
    if run.output_size >= run.output_cap:
        return _fail(Code.OUTPUT_CAP, f"printed more than the {run.output_cap} bytes a check may print (stopped)")
    if status is not Status.WORKER_DIED and not run.ended:  # no end line: the process's own end is all there is
        where = _at(crash_line(check, run))
        if run.signal in CRASH_SIGNALS:
            return _fail(Code.CRASHED, f"crashed with {run.signal}{where}")
        if run.signal:  # SIGKILL may be the machine's OOM killer: not the snippet's doing for sure
            return _fail(Code.KILLED, f"killed by {run.signal}{where}", cacheable=run.signal != "SIGKILL")
        # what it wrote instead, where that was not the verifier's (a look-alike of its lines, the end cut short)
        said = f": {run.malformed}" if run.malformed else ""
        return _fail(Code.NO_OBSERVATION, f"exited with status {run.returncode} without reporting{where}{said}")
    if status is not Status.WORKER_DIED and not _exited_as_reported(run):
        why = f"killed by {run.signal}" if run.signal else f"exited with status {run.returncode}"
        return _fail(Code.MALFORMED_OBSERVATION, f"the check's process wrote the verifier's end, then {why}: an "
                                                 "observation is trusted only from a process that ended as it says")
    if seen is not None and (seen.tampered or seen.interference):  # announced before anything else it wrote
        return _tampered(seen, function)
    if run.malformed:
        return _fail(Code.MALFORMED_OBSERVATION, run.malformed)
    if (stranger := _another_checks(check, run)) is not None:
        return _fail(Code.MALFORMED_OBSERVATION, f"{stranger}: another check's stream is never this one's verdict",
                     cacheable=False)
    if seen is None:
        return _fail(Code.MALFORMED_OBSERVATION, "the observation stream has an end but no outcome")
    if status is Status.SETUP_FAILED:
        # the environment's state, which the cache key does not hold: a rerun after its repair may pass
        return _fail(Code.SETUP_FAILED, f"could not load the target: {seen.error}", cacheable=False)
    if status is Status.NO_FUNCTION:
        return _fail(Code.NO_FUNCTION, f"source.function: {seen.error}")
    if status is Status.SYNTAX_ERROR:
        error = seen.exception or ExceptionInfo(type="SyntaxError")
        return _fail(Code.SYNTAX_ERROR, f"{error.type} at line {error.snippet_line}, column {error.snippet_col}: "
                                        f"{error.message}")
    if status is Status.SYS_EXIT:
        return _fail(Code.SYS_EXIT, f"called sys.exit({seen.exit_code}){_at(snippet_line(check, run))}")
    if status is Status.OS_EXIT:
        return _fail(Code.OS_EXIT, f"called os._exit({seen.exit_code}){_at(snippet_line(check, run))}")
    if check.kind == "before":
        return _judge_before(check, seen)
    if check.kind == "after":
        return _judge_after(check, seen, runtime)
    return _judge_guard(check, seen, runtime)


def _out_of_cpu(run: Run) -> bool:
    """Ended by its CPU-time limit: SIGXCPU, or SIGKILL once it had used the limit (it caught SIGXCPU)."""
    if run.signal == "SIGXCPU":
        return True
    return run.signal == "SIGKILL" and run.cpu_s is not None and run.cpu_s >= run.timeout_s


def _tampered(seen: Observation, function: str) -> Verdict:
    parts = ([f"replaced {', '.join(seen.tampered)}"] if seen.tampered else []) + seen.interference
    return _fail(Code.TAMPERED, f"the snippet {'; '.join(parts)}, so the real {function} was not verified")


def _exited_as_reported(run: Run) -> bool:
    """The observer ends a check's process right after its end line: with status 0, or with n for
    `os._exit(n)`. Anything else (a signal, another status) came after, from someone else."""
    if run.end_status == Status.OS_EXIT:
        return isinstance(run.end_exit, int) and run.returncode == run.end_exit
    return run.returncode == 0


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


def _another_checks(check: Check, run: Run) -> str | None:
    """Why the stream is not this check's own, if it is not: its start names the bytes its process ran and the
    functions its observer watched (a pool's reply for another check, or a stream of an earlier check, is whole and
    sealed under its own key: nothing else tells it apart; two entries may share a byte-identical snippet)."""
    if run.sha256 is not None and run.sha256 != check.snippet.sha256:
        return (f"the observation stream's process ran other bytes (SHA-256 {run.sha256[:12]}), not this check's "
                f"snippet ({check.snippet.sha256[:12]})")
    seen = run.observation
    watched = {check.entry.source.function, *(also.function for also in check.entry.also_seen_as if also.function)}
    if seen is not None and seen.calls is not None and seen.calls.function not in watched:
        return f"the observation stream watched {seen.calls.function}, not this check's {check.entry.source.function}"
    return None


def _at(line: int | None) -> str:
    return f" at line {line}" if line else ""


def _judge_before(check: Check, seen: Observation) -> Verdict:
    """By identity: the exception that reached the top must be one the observer saw *start* where the
    wording says (in a frame of the function's own code object, or at the snippet's use of the
    library), and its type and text are judged as they were at that moment."""
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
    start = error.started
    judged = error.model_copy(update={"type": start.type, "qualified_type": start.qualified_type}) if start else error
    wordings = entry.wordings(check.release, check.device)
    typed = [(index, wording) for index, wording in wordings
             if same_type(wording.exception or entry.exception, judged, strict=True)]
    if not typed:
        expected_types = " or ".join(sorted({w.exception or entry.exception for _, w in wordings}))
        if judged.type in {w.exception or entry.exception for _, w in wordings}:  # the name, not the class
            whose = f"Python's {judged.type}" if _builtin_exception(judged.type) else \
                f"the {judged.type} a module of the library or the runtime defines"
            return _fail(Code.WRONG_EXCEPTION, f"raised {judged.qualified_type or '?'}, a class named "
                                               f"{judged.type} that is not {whose}; expected {expected_types}")
        elsewhere = _defined_elsewhere(judged, {w.exception or entry.exception for _, w in wordings})
        if elsewhere is not None:
            return _fail(Code.WRONG_EXCEPTION, elsewhere)
        return _fail(Code.WRONG_EXCEPTION, f"raised {judged.type}: {_first_line(error.message)}; "
                                           f"expected {expected_types}")
    if start is not None and start.message is None:
        return _fail(Code.MESSAGE_DIFFERS, f"message differs: the {start.type}'s text could not be read when it was "
                                           "raised without running code of its own")
    message = start.message if start is not None and start.message is not None else error.message
    matched = [(index, wording, values) for index, wording in typed
               if (values := wording.template.match(message)) is not None]
    if not matched:
        others = f" (nor any of its {len(typed) - 1} other wordings here)" if len(typed) > 1 else ""
        shown = typed[0][1].message
        return _fail(Code.MESSAGE_DIFFERS, f"message differs{others}\n  expected: {shown}\n  actual:   {message}")
    # The same words may come from different places in different releases (a wording per raise site):
    # the first wording that matches both the words and the place decides.
    placed = [(one, _misplaced(check, error, one[1], one[0])) for one in matched]
    fitting = [one for one, misplaced in placed if misplaced is None]
    if not fitting:
        return placed[0][1]  # type: ignore[return-value]
    index, wording, values = fitting[0]
    if index > 0 and (other := _claimed_elsewhere(check, judged, message, wording)) is not None:
        return _fail(Code.OTHER_ENTRY, f"raised {other.entry}'s own error ({judged.type}: {_first_line(message)}), "
                                       f"matched only by a wording in also_seen_as: a wording verifies only the "
                                       f"entry it belongs to")
    if index == 0:
        for placeholder, wanted in entry.expect.placeholders.items():
            if placeholder not in values:
                return _fail(Code.PLACEHOLDER_DIFFERS,
                             f"expect.placeholders names '{{{placeholder}}}', which the message does not have")
            if values[placeholder] != wanted:
                return _fail(Code.PLACEHOLDER_DIFFERS,
                             f"placeholder {{{placeholder}}} is {values[placeholder]!r}; expected {wanted!r}")
    where = f"from {wording.function} (line {start.line})" if wording.function and start else \
        f"at the use of {function}"
    if not wording.function and start and start.where == "beneath":  # refused inside the library's own wrapper
        where += f", in its wrapper {start.code}"
    if wording.function and start and start.where == "beneath":
        where += f", in {start.code or 'code'} it called"
    elif wording.function and start and start.where == "snippet":
        where = (f"by Python in {start.code or 'the snippet'} (line {start.line}), the user's code "
                 f"{wording.function} called")
    said = f"raised {judged.type} {where}"
    if index == 0:
        return Verdict(outcome=Outcome.PASS, code=Code.RAISED_AS_DOCUMENTED, reason=said, wording=index)
    # Through another wording: the record keeps where the entry says it is worded so, and views word it then.
    claim = Worded(releases=wording.releases, device=wording.device)
    return Verdict(outcome=Outcome.PASS, code=Code.RAISED_AS_DOCUMENTED, reason=f"{said}{WORDED}{claim.where}",
                   wording=index, claim=claim)


def _claimed_elsewhere(check: Check, error: ExceptionInfo, message: str, wording: Wording) -> Claim | None:
    """Another entry whose own error this is: its exception and message, from the same function."""
    for other in check.others:
        if other.function != wording.function or not same_type(other.exception, error, strict=True):
            continue
        if MessageTemplate.parse(other.message).match(message) is not None:
            return other
    return None


def _misplaced(check: Check, error: ExceptionInfo, wording: Wording, index: int) -> Verdict | None:
    """Why the matching error does not count as the documented one, by where the observer saw it start."""
    entry = check.entry
    start = error.started
    if start is not None and start.entered == "thrown":
        return _fail(Code.WRONG_RAISE_SITE, f"thrown into {start.code or 'a suspended frame'} (line {start.line}) "
                                            f"at the yield it was suspended at (a generator's or coroutine's throw), "
                                            f"not raised there")
    if wording.function is not None:  # raised by the library's own function (a raise, or C code under it)
        if start is None:
            return _fail(Code.WRONG_RAISE_SITE, f"raised from {_origin(error)}, where the verifier did not see it "
                                                f"raised; expected {wording.function}")
        beneath = start.where == "beneath" and entry.source.implicit  # Python or the runtime, under the function
        # Python, in the user's own code the function called (a remote model's method), this very
        # exception then unwinding the function's frame: only where the entry says so (`user_code`).
        user = (entry.source.implicit and entry.source.user_code and start.where == "snippet"
                and wording.function in start.through and start.opcode not in ("RAISE_VARARGS", "RERAISE", None))
        if user and _calls_out(start.opcode):
            return _fail(Code.WRONG_RAISE_SITE, f"raised in {start.code or 'the snippet'} (line {start.line}) by "
                                                f"code it called ({start.opcode}), not by Python's own instruction; "
                                                f"C code raises what it is given (a generator's throw)")
        if user:
            return None
        # The watched function by its label, or by the qualified name of its code object (a removed
        # name's old function is watched as `owner.name`: 4.43's stub is GenerationMixin._reorder_cache).
        named = wording.function in (start.function, start.code if start.where == "target" else None)
        if (start.where != "target" and not beneath) or not named:
            return _fail(Code.WRONG_RAISE_SITE, f"raised from {_place(start)}; expected {wording.function}")
        if index == 0 and entry.kind == "raise" and not entry.source.implicit and start.opcode != "RAISE_VARARGS":
            return _fail(Code.WRONG_RAISE_SITE, f"raised in {start.function} (line {start.line}) by what it called "
                                                f"({start.opcode or 'unknown instruction'}), not by its own raise "
                                                f"statement; expected {wording.function}")
        return None
    if entry.kind in ("removed", "signature") and entry.api is not None:
        facts = error.api if start is not None else None
        api = f"{entry.api.owner}.{entry.api.name}"
        if facts is None or facts.via is None:
            opcode = start.opcode if start is not None else None
            return _fail(Code.NOT_THE_LIBRARY, f"the {error.type} was not raised by Python at a use of {api} "
                                               f"(instruction: {opcode or 'unknown'})")
        if not facts.owner_is_target:
            return _fail(Code.NOT_THE_LIBRARY, f"the {error.type} concerns an object that is not the library's "
                                               f"{entry.api.owner}")
        if entry.kind == "removed" and (facts.name != entry.api.name or not facts.absent_in_target):
            why = f"it concerns '{facts.name}'" if facts.name != entry.api.name else \
                f"the library's {entry.api.owner} still has '{entry.api.name}'"
            return _fail(Code.NOT_THE_LIBRARY, f"not the removed {api}: {why}")
        return None
    if start is None or start.where not in ("snippet", "target") or start.opcode in ("RAISE_VARARGS", "RERAISE", None):
        return _fail(Code.WRONG_RAISE_SITE, f"the {error.type} was raised by a `raise` or outside the snippet and the "
                                            "library, not by Python at the snippet's use of the library")
    return None


def _calls_out(opcode: str | None) -> bool:
    """An instruction that calls (`CALL`, `CALL_FUNCTION_EX`, 3.11's `PRECALL`, 3.13's `CALL_KW`, an instrumented
    call): an error starting there in the snippet's frame came from C code it called, which raises whatever it is
    given (an exhausted generator's `throw`, `warnings.warn` as an error, a C future's `result`), not from Python
    failing an instruction of the user's code."""
    return opcode is not None and "CALL" in opcode


def _place(start: Start) -> str:
    if start.where == "target":
        return f"{start.function} (line {start.line})"
    if start.where == "beneath":
        return f"{start.code or '?'}, called by {start.function} (line {start.line}), in an entry not marked implicit"
    name = (start.file or "?").rsplit("/", 1)[-1]
    return f"{start.code or '?'} ({name}:{start.line}), outside the target"


def _judge_after(check: Check, seen: Observation, runtime: Runtime) -> Verdict:
    function = check.entry.source.function
    if seen.status is Status.RAISED and seen.exception is not None:
        error = seen.exception
        again = " (the documented error, still)" if _is_documented(check, error) else ""
        return _fail(Code.RAISED, f"raised {error.type}: {_first_line(error.message)}{again}")
    failed = _clean_run_failure(check, seen, runtime, "a fix must go through the same API")
    count = seen.calls.count if seen.calls else 0
    return failed or _pass(Code.RAN_CLEAN, f"called {function} {count}× and every call returned",
                           *_device_basis(check, seen, runtime))


def _clean_run_failure(check: Check, seen: Observation, runtime: Runtime, why_call: str) -> Verdict | None:
    """The rungs an after and a passing guard share once the snippet itself exited normally:
    it called the function, every call returned, and on a device it really used the device."""
    function = check.entry.source.function
    calls = seen.calls
    if calls is None or not calls.count:
        return _fail(Code.NEVER_CALLED, f"never called {function}; {why_call}")
    answers = _attribute_answers(check, calls)
    if len(calls.raised) > answers:
        error = next(one for one in calls.raised if not answers or not _is_attribute_answer(check, one))
        return _fail(Code.CALL_RAISED, f"{function} raised {error.type} inside the snippet (caught): "
                                       f"{_first_line(error.message)}")
    if calls.raised_count != answers or calls.running or calls.returned + answers != calls.count:
        running = f": {calls.running} still running when the snippet ended" if calls.running else ""
        return _fail(Code.STILL_RUNNING, f"{function} was called {calls.count}× and returned {calls.returned}×"
                                         f"{running}")
    if not runtime.device_used(check.device, seen.evidence) \
            and not runtime.object_device_used(check.device, seen.evidence):
        if seen.evidence is None:  # no counter was read: "no work" would be a claim nobody observed
            return _fail(Code.NO_DEVICE_WORK, f"the runtime's {check.device} counters could not be read in the "
                                              f"check's process, so no work on the {check.device} device is proven")
        # The counter is the process's: a rise beside another thread, or where the call held C code the snippet
        # planted, is not the call's own work (the observer's `_p_device_work`).
        apart = [f"{count} while another thread the snippet started was alive" if key == "shared" else
                 f"{count} whose arguments held C code the snippet planted" for key in ("shared", "planted")
                 if type(count := seen.evidence.get(key)) is int and count > 0]
        apart += [f"{count} of the library's on the object it was called on {why}" for key, why in _OBJECT_APART
                  if type(count := seen.evidence.get(key)) is int and count > 0]
        if apart:
            return _fail(Code.NO_DEVICE_WORK, f"the runtime's {check.device} counter rose only during calls that "
                                              f"cannot be told from other work ({'; '.join(apart)}), so no work of "
                                              f"the function's own on the {check.device} device is proven")
        return _fail(Code.NO_DEVICE_WORK, f"the runtime saw no work on the {check.device} device, so this was not "
                                          f"a {check.device} check")
    return None


# Rises of the counter during the library's calls on the object the function ran on, counted apart by the observer
# (`_p_object_return`), and why none is that object's work.
_OBJECT_APART = (("object_shared", "while another thread the snippet started was alive"),
                 ("object_planted", "whose arguments held C code the snippet planted"),
                 ("object_snippet", "while the snippet's own code ran inside it"))


def _device_basis(check: Check, seen: Observation, runtime: Runtime) -> tuple[DeviceBasis | None, str]:
    """What a pass on a device rests on (none on the host's own), once `_clean_run_failure` found device work: the
    function's own calls' (`CALL`), or else only the library's own calls on the object it was called on (`OBJECT`, a
    narrower claim, said in the reason: the function allocated nothing itself)."""
    if check.device == runtime.devices[0]:
        return None, ""
    if runtime.device_used(check.device, seen.evidence):
        return DeviceBasis.CALL, ""
    done = (seen.evidence or {}).get("object_bytes")
    return DeviceBasis.OBJECT, (f"; on {check.device}, {check.entry.source.function} itself allocated nothing: the "
                                f"library's own calls on the object it was called on allocated {done} bytes there")


def _is_attribute_answer(check: Check, error: RaisedCall) -> bool:
    """A `__getattr__` answers "no such attribute" by raising AttributeError (`hasattr`, `getattr` with a
    default, a runtime registering a module's parameters ask it so): its protocol, unless it is the documented error."""
    return check.entry.source.function.rsplit(".", 1)[-1] == "__getattr__" and same_type("AttributeError", error) \
        and not _is_documented(check, error)


def _attribute_answers(check: Check, calls: Calls) -> int:
    """How many of the watched function's raises were such answers; 0 unless the observer read every one."""
    if calls.raised_count != len(calls.raised):
        return 0
    return sum(_is_attribute_answer(check, error) for error in calls.raised)


def _judge_guard(check: Check, seen: Observation, runtime: Runtime) -> Verdict:
    expect = check.guard
    assert expect is not None
    function = check.entry.source.function
    if _documented_error_raised(check, seen):
        calls = seen.calls
        raised = sum(_is_documented(check, one) for one in calls.raised) if calls else 0
        of = f" ({raised} of {calls.count} calls)" if calls and calls.raised_count == len(calls.raised) else ""
        # said even when the snippet caught it: a guard keeps the call from raising, a catch only hides it
        return _fail(Code.LET_ERROR_THROUGH, f"let the documented {check.entry.exception} through from {function}: "
                                             f"{function} raised it{of}; a guard keeps the call from raising "
                                             "(catching it afterwards is no guard)")
    error = seen.exception
    if expect.outcome == "passes":
        if seen.status is Status.RAISED and error is not None:
            return _fail(Code.RAISED, f"raised {error.type}: {_first_line(error.message)}; expected to run clean")
        failed = _clean_run_failure(check, seen, runtime, "a guard that passes must still make the call")
        count = seen.calls.count if seen.calls else 0
        return failed or _pass(Code.RAN_CLEAN, f"ran clean; {function} called {count}×, every call returned",
                               *_device_basis(check, seen, runtime))
    if seen.status is Status.RETURNED or error is None:
        return _fail(Code.EXITED_NORMALLY, f"exited normally; expected the guard's own {expect.exception}")
    if not same_type(expect.exception or "", error):
        if error.type == (expect.exception or "").rsplit(".", 1)[-1]:  # the name, not the class (the observer's)
            return _fail(Code.WRONG_EXCEPTION, f"raised {error.qualified_type or '?'}, a class named {error.type} "
                                               f"that is not the {expect.exception} it names; expected the guard's "
                                               f"own {expect.exception}")
        return _fail(Code.WRONG_EXCEPTION, f"raised {error.type}: {_first_line(error.message)}; "
                                           f"expected the guard's own {expect.exception}")
    if expect.message is not None and MessageTemplate.parse(expect.message).match(error.message) is None:
        return _fail(Code.MESSAGE_DIFFERS,
                     f"guard message differs\n  expected: {expect.message}\n  actual:   {error.message}")
    # A guard proves something about the library only by using it: the call it lets through works (unless
    # the entry says why it cannot call it where it raises: then whatever calls it made must still return).
    if expect.without_calling is None:
        failed = _clean_run_failure(check, seen, runtime, "a guard that stops a bad call must also let a good one "
                                                          "through to the library")
        if failed is not None:
            return failed
    elif seen.calls is not None and (seen.calls.raised_count or seen.calls.returned != seen.calls.count):
        return _fail(Code.STILL_RUNNING, f"{function} was called {seen.calls.count}× and returned "
                                         f"{seen.calls.returned}×")
    count = seen.calls.count if seen.calls else 0
    basis = _device_basis(check, seen, runtime) if expect.without_calling is None else (None, "")
    return _pass(Code.STOPPED_EARLY, f"stopped the call early with its own {error.type}, after {function} was "
                                     f"called {count}× and every call returned", *basis)


def same_type(expected: str, error: ExceptionInfo | RaisedCall, strict: bool = False) -> bool:
    """`ValueError` names the class; `pkg.SomeError` also pins its package. Judged by the qualified name the
    observer vouches for (`builtins.X` of Python's own class alone, `module.X` only of a class a trusted module
    defines, else `?.X`), never by the `__module__` a class claims. A builtin's name is that class, by identity;
    a dotted name, a class of its package; with `strict` (the documented error), any other name too is a class
    a trusted module defines, not the snippet's (a guard's own exception is named by its name alone). A call's
    unwinding recorded with no qualified name is judged by its name: it only fails a check."""
    qualified = error.qualified_type
    if isinstance(error, RaisedCall) and qualified is None:
        return error.type == expected.rsplit(".", 1)[-1]
    if "." not in expected:
        if error.type != expected:
            return False
        if _builtin_exception(expected):
            return qualified == f"builtins.{expected}"
        return not strict or (qualified is not None and not qualified.startswith(("?", "builtins.")))
    qualified = qualified or ""
    package, name = expected.split(".")[0], expected.rsplit(".", 1)[-1]
    return qualified == expected or (qualified.split(".")[0] == package and error.type == name)


def _defined_elsewhere(judged: ExceptionInfo, expected: set[str]) -> str | None:
    """Why the class the author named by a package that only imports it (`pydantic.ValidationError`, which
    pydantic takes from pydantic-core) is not the raised one, though it is the same class: a dotted name pins the
    package whose module defines it, as the traceback prints it."""
    qualified = judged.qualified_type or ""
    if qualified.startswith(("?", "builtins.")) or not qualified:
        return None
    named = sorted(name for name in expected if "." in name and name.rsplit(".", 1)[-1] == judged.type)
    if not named:
        return None
    return (f"raised {qualified}, the class the traceback names; expected {' or '.join(named)}: a dotted `exception` "
            f"names the package whose module defines the class, not one that imports it from there: write "
            f"`exception: {qualified}` (or `{judged.type}` alone)")


def _builtin_exception(name: str) -> bool:
    found = getattr(builtins, name, None)
    return isinstance(found, type) and issubclass(found, BaseException)


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
    return f"{origin.function} ({origin.file.rsplit('/', 1)[-1]}:{origin.line})"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "(no message)"
