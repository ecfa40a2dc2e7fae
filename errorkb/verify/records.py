"""The verifier's vocabulary for a check's run: what the child observed and the verdict on it.

- `Status`       how the snippet's run ended, as the child (or, for a dead worker, the pool)
                 observed it; shared by child, pool and judge.
- `Observation`  the child's whole report of one run; validated when read, so a malformed one
                 is a failure of that check, never a crash of the run.
- `Verdict`      outcome + code + reason + whether it may be cached.

What a report keeps (`Outcome`, `Code`, `CheckRecord` and the observed facts it holds:
`ExceptionInfo`, `Calls`, `Exit`...) lives in `errorkb.results.records`, below the runner, and
is re-exported here for the runner's modules.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from errorkb.results.records import (
    PASSES,
    WORDED,
    ApiFacts,
    Calls,
    CheckRecord,
    Code,
    DeviceBasis,
    ExceptionInfo,
    Exit,
    Outcome,
    RaisedCall,
    Site,
    Start,
    Worded,
)


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


class Verdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    outcome: Outcome
    code: Code
    reason: str  # one line for people (a "message differs" reason adds the two sides)
    cacheable: bool = True  # False when a rerun could come out otherwise (the machine's moment)
    wording: int | None = None  # which wording of the error matched: 0 the entry's own, i its also_seen_as[i-1]
    device_basis: DeviceBasis | None = None  # a pass on a device: which device evidence it rests on
    # A pass through another of the entry's wordings: where that wording says it is worded so, which its record keeps
    # (`CheckRecord.claim`) and every view words when it shows it; the reason says it in the words of the day.
    claim: Worded | None = None


def not_run(code: Code, reason: str) -> Verdict:
    outcome = Outcome.NOT_APPLICABLE if code is Code.NOT_APPLICABLE else Outcome.NOT_RUN
    return Verdict(outcome=outcome, code=code, reason=reason, cacheable=False)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


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


__all__ = ["WORDED", "ApiFacts", "Calls", "CheckRecord", "Code", "DeviceBasis", "ExceptionInfo", "Exit", "Observation",
           "Outcome", "PASSES", "RaisedCall", "Site", "Start", "Status", "Verdict", "Worded", "not_run"]
