"""The verifier's vocabulary, typed: outcomes, what a check's process observed, verdicts, records.

- `Outcome`      pass, fail, not run, not applicable: what a reader is told. Never conflated.
- `Status`       how the snippet's run ended, as the child (or, for a dead worker, the pool)
                 observed it; shared by child, pool and judge.
- `Observation`  the child's whole report of one run; validated when read, so a malformed one
                 is a failure of that check, never a crash of the run.
- `Code`         why a verdict is what it is, as a stable name; decisions (cache, matrix,
                 exit status) read codes, never the human-readable reason.
- `Verdict`      outcome + code + reason + whether it may be cached.
- `CheckRecord`  one check in a report: the unit the site, the cache, the matrix and the CLI read.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from errorkb.core.snippets import Role


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_RUN = "not-run"  # could have run, but not here and now (no device, an unmet need)
    NOT_APPLICABLE = "not-applicable"  # cannot apply to this target (an error another release raises)

    @property
    def ran(self) -> bool:
        return self in (Outcome.PASS, Outcome.FAIL)


class Status(StrEnum):
    RETURNED = "returned"
    RAISED = "raised"
    SYS_EXIT = "sys-exit"
    OS_EXIT = "os-exit"
    SYNTAX_ERROR = "syntax-error"
    SETUP_FAILED = "setup-failed"  # the target or the runtime could not be imported
    NO_FUNCTION = "no-function"  # source.function is not defined in the target
    NO_DEVICE = "no-device"  # the runtime cannot use the check's device
    WORKER_DIED = "worker-died"  # set by the pool: the warm worker died before the check ended


class Code(StrEnum):
    """Why a verdict is what it is. Values are stable: reports and tests keep them."""

    # not run / not applicable
    TARGET_UNAVAILABLE = "target-unavailable"
    UNMET_NEED = "unmet-need"
    NO_DEVICE = "no-device"
    NOT_APPLICABLE = "not-applicable"
    # the process
    WORKER_DIED = "worker-died"
    TIMEOUT = "timeout"
    OUTPUT_CAP = "output-cap"
    CRASHED = "crashed"
    KILLED = "killed"
    NO_OBSERVATION = "no-observation"
    MALFORMED_OBSERVATION = "malformed-observation"
    # the snippet as a whole
    SETUP_FAILED = "setup-failed"
    NO_FUNCTION = "no-function"
    SYNTAX_ERROR = "syntax-error"
    TAMPERED = "tampered"
    SYS_EXIT = "sys-exit"
    OS_EXIT = "os-exit"
    # what the role demands
    EXITED_NORMALLY = "exited-normally"
    CAUGHT_DOCUMENTED_ERROR = "caught-documented-error"
    WRONG_EXCEPTION = "wrong-exception"
    MESSAGE_DIFFERS = "message-differs"
    WRONG_RAISE_SITE = "wrong-raise-site"
    PLACEHOLDER_DIFFERS = "placeholder-differs"
    RAISED = "raised"
    NEVER_CALLED = "never-called"
    CALL_RAISED = "call-raised"
    STILL_RUNNING = "still-running"  # a call of the function had not returned when the snippet ended
    NO_DEVICE_WORK = "no-device-work"
    LET_ERROR_THROUGH = "let-error-through"
    NOT_THE_LIBRARY = "not-the-library"  # a removed-name or signature error about something else
    OLD_API_RAN = "old-api-ran"  # a removed API's before ran clean, calling the old name (it still exists)
    OTHER_ENTRY = "other-entry"  # raised another entry's own error, through a wording of this one's
    UNALLOWED = "unallowed-primitive"  # the snippet uses a primitive the lint flags, with no allowance
    # passes
    RAISED_AS_DOCUMENTED = "raised-as-documented"
    RAN_CLEAN = "ran-clean"
    STOPPED_EARLY = "stopped-early"


PASSES = {Code.RAISED_AS_DOCUMENTED, Code.RAN_CLEAN, Code.STOPPED_EARLY}


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    code: Code
    reason: str  # one line for people (a "message differs" reason adds the two sides)
    cacheable: bool = True  # False when a rerun could come out otherwise (the machine's moment)
    wording: int | None = None  # which wording of the error matched: 0 the entry's own, i its also_seen_as[i-1]


def not_run(code: Code, reason: str) -> Verdict:
    outcome = Outcome.NOT_APPLICABLE if code is Code.NOT_APPLICABLE else Outcome.NOT_RUN
    return Verdict(outcome=outcome, code=code, reason=reason, cacheable=False)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Site(_Record):
    file: str
    function: str
    line: int
    module: str | None = None


class ApiFacts(_Record):
    """How an error about a name of the library's API came about, judged by identity in the check's
    process (for entries of kind 'removed' and 'signature')."""

    via: str | None = None  # "attribute", "getattr", "import", "call", or None when none of these
    owner_is_target: bool = False  # the object, module or callee is the library's own `api.owner`
    name: str | None = None  # the attribute or imported name the failure was about
    absent_in_target: bool = False  # the library's `api.owner` really has no such name


class Start(_Record):
    """Where the observer saw an exception *start*, by identity: a frame whose code object is a watched
    function's (`target`), the snippet's own (`snippet`), or the library's `__getattr__` (`library`),
    with the traceback so far that frame alone; or (`beneath`) in the library's or the runtime's own
    code that a watched function's frame called, nothing else between (`code` names where, `line` is
    the function's); its text and what it concerned, read at that moment."""

    function: str | None = None  # the watched function's label, for `target`
    where: Literal["target", "snippet", "library", "beneath"]
    code: str | None = None  # the qualified name of the code it started in (for people)
    type: str
    qualified_type: str | None = None
    message: str | None = None  # None: not readable then without running the exception's own code
    line: int | None = None
    opcode: str | None = None  # the instruction it started at (RAISE_VARARGS: a `raise` statement)
    through: list[str] = Field(default_factory=list)  # watched functions whose frames this very object unwound
    file: str | None = None
    module: str | None = None


class ExceptionInfo(_Record):
    type: str
    qualified_type: str | None = None
    message: str = ""
    started: Start | None = None  # None: the observer never saw this exception start where it watches
    raise_site: Site | None = None  # the frame inside the target that raised
    origin: Site | None = None  # the innermost frame, wherever it is
    opcode: str | None = None  # the instruction the innermost frame was running (RAISE_VARARGS: a `raise`)
    in_snippet: bool = False  # the innermost frame runs the snippet's own compiled code
    api: ApiFacts | None = None
    snippet_line: int | None = None
    snippet_col: int | None = None
    traceback: str | None = None


class RaisedCall(_Record):
    type: str
    message: str


class Calls(_Record):
    """How the snippet called `source.function`: how often, and how each call ended (returned,
    raised: an exception unwound its frame, or still running when the snippet ended)."""

    function: str
    count: int = 0
    returned: int = 0
    raised: list[RaisedCall] = Field(default_factory=list)
    raised_count: int = 0
    running: int = 0


class Observation(_Record):
    """What the child process saw; written by the child, validated by the harness."""

    status: Status
    error: str | None = None  # setup-failed, no-function, worker-died: what went wrong
    exit_code: int | str | None = None  # sys.exit / os._exit argument
    exception: ExceptionInfo | None = None
    calls: Calls | None = None
    old_calls: Calls | None = None  # for a removed API: calls of the old name, where it still exists
    tampered: list[str] = Field(default_factory=list)  # what the snippet replaced
    interference: list[str] = Field(default_factory=list)  # what else it did to the verifier (phrases)
    evidence: dict[str, Any] | None = None  # the observer's reading of the runtime's device counters
    environment: dict[str, Any] | None = None
    duration_s: float | None = None
    snippet_sha256: str | None = None  # of the bytes the check's process compiled and ran

    @model_validator(mode="after")
    def _complete(self) -> Observation:
        if self.status in (Status.RAISED, Status.SYS_EXIT) and self.exception is None:
            raise ValueError(f"an observation with status '{self.status}' names its exception")
        return self


class Exit(_Record):
    returncode: int | None = None
    signal: str | None = None
    timed_out: bool = False


class CheckRecord(_Record):
    """One check's result, as reports store it and the site reads it."""

    id: str
    entry: str
    role: Role
    snippet: str  # project-relative path
    snippet_sha256: str | None = None  # of the bytes that ran (None: the file could not be read)
    target: str
    device: str
    release: str | None = None  # the upstream release, when the target names one
    outcome: Outcome
    code: Code
    reason: str
    expected: str
    verified_at: str
    cached: bool = False
    actual: str | None = None
    snippet_line: int | None = None
    duration_s: float | None = None
    isolation: str | None = None
    exit: Exit | None = None
    exception: ExceptionInfo | None = None
    calls: Calls | None = None
    old_calls: Calls | None = None
    tampered: list[str] = Field(default_factory=list)
    interference: list[str] = Field(default_factory=list)
    evidence: dict[str, Any] | None = None
    environment: dict[str, Any] | None = None
    output: str | None = None
    wording: int | None = None
    key: str | None = None  # the verdict-cache key it was stored under

    @property
    def raise_site(self) -> Site | None:
        return self.exception.raise_site if self.exception else None


__all__ = ["ApiFacts", "Calls", "CheckRecord", "Code", "ExceptionInfo", "Exit", "Observation", "Outcome", "PASSES",
           "RaisedCall", "Site", "Start", "Status", "Verdict", "not_run"]
