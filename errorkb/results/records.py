"""One check's result as reports keep it: the vocabulary the site, the matrix and the CLI read.

- `Outcome`      pass, fail, not run, not applicable: what a reader is told. Never conflated.
- `Code`         why a verdict is what it is, as a stable name; decisions (cache, matrix,
                 exit status) read codes, never the human-readable reason.
- `Claim`        where the entry says its error raises, as a not-applicable record keeps it: a claim, worded
                 when a reader is shown it (`CheckRecord.said`), never the words of the day a verifier ran.
- `Worded`       where the entry says the wording a before raised is worded so (a release range, a device), as a
                 pass through another of its wordings keeps it: worded when shown, as a `Claim` is.
- `CheckRecord`  one check in a report, with what the check's process observed (`ExceptionInfo`,
                 `Calls`, `Exit`...), what it was made from (`inputs`), and whether it came from a
                 run or from the verdict cache (`cached`, with `recorded_at` and `verified_at`).
- target names   `bundled` and `upstream`, as records carry them (defined in errorkb.core.project).

The runner writes these records; nothing here runs a check, so the site, the hook and the
lookup read them without importing the verifier.
"""

from __future__ import annotations

import functools
import re
from enum import StrEnum
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from errorkb.core.project import BUNDLED, TARGETS, UPSTREAM
from errorkb.core.snippets import Role
from errorkb.core.words import release_words


class Outcome(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_RUN = "not-run"  # could have run, but not here and now (no device, an unmet need)
    NOT_APPLICABLE = "not-applicable"  # cannot apply to this target (an error another release raises)

    @property
    def ran(self) -> bool:
        return self in (Outcome.PASS, Outcome.FAIL)


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


class DeviceBasis(StrEnum):
    """What a pass on a device (not the host's CPU) rests on, as the judge decided it. Values are stable."""

    CALL = "call"  # the device's own counter rose during calls of the function under test: its own work
    # The function allocated nothing itself; the library's own calls on the object it was called on (`self`) did:
    # the object it ran on was the device's, not the function's own work (a cache's length, an empty constructor).
    OBJECT = "object"


# The instructions a suspended frame waits at (3.11: YIELD_VALUE; `yield from` and `await` wait in the frame they
# delegate to, at its own): an exception that starts there was thrown into the frame.
THROWN_AT = ("YIELD_VALUE",)
PASSES = {Code.RAISED_AS_DOCUMENTED, Code.RAN_CLEAN, Code.STOPPED_EARLY}


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

    @property
    def entered(self) -> Literal["called", "thrown"]:
        """How the frame it started in was running it: `thrown` when it started at the `yield` the frame was
        suspended at, where no instruction raises: the frame was resumed with it (a generator's `throw`, an
        async generator's `athrow`, a coroutine's `throw`, a `close`), by whoever held the generator; else
        `called` (a `raise`, an instruction, or C code the frame called). Read from the instruction the observer
        recorded, so every stream that has one says it."""
        return "thrown" if self.opcode in THROWN_AT else "called"


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
    # The observer's qualified name of its class (`builtins.X` for Python's own alone, `?.X` for a class no trusted
    # module defines); None where the record carries none.
    qualified_type: str | None = None


class Calls(_Record):
    """How the snippet called `source.function`: how often, and how each call ended (returned,
    raised: an exception unwound its frame, or still running when the snippet ended)."""

    function: str
    count: int = 0
    returned: int = 0
    raised: list[RaisedCall] = Field(default_factory=list)
    raised_count: int = 0
    running: int = 0


class Exit(_Record):
    returncode: int | None = None
    signal: str | None = None
    timed_out: bool = False


def check_id(entry: str, role: str, target: str, device: str) -> str:
    """A check's id, `<entry>::<role>[<target>-<device>]`: records are merged and chosen by it, pages and
    badges read the fields it is made of, so a record's id is never anything else (`CheckRecord.named`)."""
    return f"{entry}::{role}[{target}-{device}]"


class Claim(_Record):
    """Why a check cannot apply at its release: where the entry says its error raises, as the verifier read the entry
    when it planned the check. Kept as the entry states it (a specifier, or the one pinned release), so every view
    words it when it shows it (`words`, `errorkb.core.words.release_words`) and two records of one claim are one,
    whatever words the verifier of the day chose for their `reason`."""

    library: str = Field(max_length=200)  # the library's name, as its profile says it
    release: str = Field(max_length=100)  # the release the check was planned at, which the claim leaves out
    raises: str | None = Field(None, max_length=1000)  # the entry's `releases.raises`, a specifier
    pinned: str | None = Field(None, max_length=100)  # without `raises`: the one release the entry is pinned to

    @property
    def words(self) -> str:
        """The claim as a reader reads it, worded now: the one sentence every view says."""
        where = release_words(self.raises) if self.raises else f"{self.pinned} only"
        return f"{self.library} {self.release} does not raise this error (it raises in {where})"


class Worded(_Record):
    """Where the wording a before raised says it is worded so, as the judge read it from the entry (the wording's
    `releases`, a specifier, and `device`): what a pass through another of the entry's wordings rests on. Kept as the
    entry states it, so every view words it when it shows it (`words`) and two records of one wording are one,
    whatever words the verifier of the day chose for their `reason`."""

    releases: str | None = Field(None, max_length=1000)  # the wording's `releases`, a specifier (None: any release)
    device: str | None = Field(None, max_length=100)  # the wording's `device` (None: any device)

    @property
    def where(self) -> str:
        """The claim as a reader reads it, worded now ("in 4.43 – 4.53 on <device>"): what follows `WORDED` after the
        judge's observation in the sentence every view says (`said_of`)."""
        where = [part for part in (f"in {release_words(self.releases)}" if self.releases else "",
                                   f"on {self.device}" if self.device else "") if part]
        return " ".join(where) or "otherwise"


# What joins the judge's observation ("raised X from f (line 3)") to a `Worded` claim's words in a pass's reason: the
# judge writes it, `said` reads the observation up to it, so the words after it are never read as text.
WORDED = ", as worded "


# An absolute path into an installed environment, as an exception's message names a file ("(/home/me/venv/lib/
# python3.11/site-packages/x/y.py)"): the folder up to `site-packages/` is the machine's, and differs per machine and
# per release's environment (the version matrix's `<cache>/matrix/<dist>-<release>/`); shown from there on.
_INSTALLED = re.compile(r"(?<![\w.~:/-])(?:/[^\s/'\"()<>\[\]]+)+?/((?:site|dist)-packages/)")
# Where a path starts: not inside a word, a path, a URL or a path already said from `…/`.
_AT = r"(?<![\w.~:/…-])"


@functools.lru_cache(maxsize=16)
def _rules(bundled: str | None, root: str | None,
           installed: tuple[str, ...]) -> tuple[tuple[re.Pattern[str], str], ...]:
    rules: list[tuple[re.Pattern[str], str]] = [
        (re.compile(_AT + re.escape(folder)), "…/") for folder in sorted(installed, key=len, reverse=True)
        if "-packages/" not in folder]
    if bundled:
        marker = bundled.replace(".", "/") + "/"
        rules.append((re.compile(_AT + r"(?:/[^\s/'\"()<>\[\]]+)+?/(?=" + re.escape(marker) + ")"), ""))
    if root:
        rules.append((re.compile(_AT + re.escape(root.rstrip("/") + "/")), ""))
    return tuple(rules)


def unrooted(text: str, bundled: str | None = None, root: str | None = None, installed: tuple[str, ...] = ()) -> str:
    """`text` without the folders of the machine that wrote it, so a reader is shown none and two records of one
    failure compare alike: how the verifier stores every text of a record (`verify.engine`) and how a view reads a
    record written before it did (one rule for both). A path into an installed environment from its
    `site-packages/` on ("…/site-packages/x/y.py"); one into a folder the library is installed in (`installed`, an
    editable checkout's) from the package's folder on after `…/`; one into the bundled implementation's package
    (`bundled`, its import name) from that package on, wherever its checkout was; one into the project (`root`)
    relative to it."""
    if "/" not in text:
        return text
    if "-packages/" in text:
        text = _INSTALLED.sub(r"…/\1", text)
    for rule, replacement in _rules(bundled, root, tuple(installed)):
        text = rule.sub(replacement, text)
    return text


def said_of(code: str, reason: str, claim: Claim | Worded | None) -> str:
    """Why a verdict is what it is, as a reader is told it now (`CheckRecord.said`): a not-applicable `Claim` worded
    now; a `Worded` claim worded now after the judge's observation (the stored reason up to `WORDED`, which the judge
    put before the words of its day); a record with no claim, its stored reason with any range the verifier's own
    sentence named in words (`worded`); any path into an installed environment from its `site-packages/` on
    (`unrooted`)."""
    if isinstance(claim, Claim):
        return claim.words
    if isinstance(claim, Worded):
        first, newline, rest = reason.partition("\n")
        at = first.rfind(WORDED)
        return unrooted(f"{first[:at] if at >= 0 else first}{WORDED}{claim.where}{newline}{rest}")
    return unrooted(worded(code, reason))


# A release specifier as a verifier wrote one into a reason before reasons were worded (">=4.45", ">=4.39,<4.41",
# "<4.42 || >=4.54"): the only text `worded` ever replaces, and only where the verifier's own sentence put it.
_SPECIFIER = r"(?:[<>=!~]=?=?\s*\d+(?:\.\d+)*(?:\.\*)?)(?:\s*(?:,|\|\|)\s*[<>=!~]=?=?\s*\d+(?:\.\d+)*(?:\.\*)?)*"
# The verifier's sentences that name a release range, by the code of the verdict that says them: the not-applicable
# reason (`Claim.words`) and the judge's "as worded in <range>[ on <device>]" of a before that raised another wording.
_SAID_RANGES = {
    "not-applicable": re.compile(rf"(?<= does not raise this error \(it raises in )({_SPECIFIER})(?=\)$)"),
    "raised-as-documented": re.compile(rf"(?<=, as worded in )({_SPECIFIER})(?=$| on \S+$)"),
}


def worded(code: str, reason: str) -> str:
    """A reason a verifier stored, in a reader's words now: where the verifier's own sentence for `code` put a release
    specifier (a record written before reasons were worded: "it raises in >=4.45", "as worded in >=4.39,<4.41"), the
    range in words (`release_words`); any other text as it was stored, never guessed at. What the version matrix's
    records (which keep no `Claim`) and older reports are read through."""
    found = _SAID_RANGES.get(str(code))
    if found is None:
        return reason
    first, newline, rest = reason.partition("\n")
    return found.sub(lambda match: release_words(match.group(1)), first, count=1) + newline + rest


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
    reason: str  # the verifier's words on the day (a view says `said`: a claim worded now)
    expected: str
    verified_at: str  # when the verdict was observed (a cached verdict keeps the time of its run)
    cached: bool = False  # True: reused from the verdict cache, not run by the run that wrote this record
    recorded_at: str | None = None  # when a run wrote this record (None: written before errorkb recorded it)
    inputs: str | None = None  # `keys.inputs_digest` of the entry and its snippet folder it was made from
    actual: str | None = None
    snippet_line: int | None = None
    duration_s: float | None = Field(None, ge=0)  # a monotonic clock's: never negative
    isolation: str | None = None
    exit: Exit | None = None
    exception: ExceptionInfo | None = None
    calls: Calls | None = None
    old_calls: Calls | None = None
    tampered: list[str] = Field(default_factory=list)
    interference: list[str] = Field(default_factory=list)
    evidence: dict[str, Any] | None = None
    device_basis: DeviceBasis | None = None  # a pass on a device: the device evidence the judge rested it on
    environment: dict[str, Any] | None = None
    output: str | None = None
    wording: int | None = Field(None, ge=0)  # which wording of the entry's matched (0: its own message)
    key: str | None = None  # the verdict-cache key it was stored under
    # Whose rules judged it: the verifier's version (None only until a `Report` holds it: a record of a report written
    # before records named theirs is the report's verifier's), and the errorkb release that ran it (None: not said).
    # A standing report keeps records of checks a run did not repeat, so one report may hold several verifiers'.
    verifier: str | None = Field(None, max_length=40)
    errorkb: str | None = Field(None, max_length=40)
    # What the reason rests on, as the entry states it: a not-applicable record's `Claim`, a pass through another of
    # the entry's wordings its `Worded` (None: another reason, or a record written before records kept it).
    claim: Claim | Worded | None = None

    @model_validator(mode="after")
    def _claim_fits(self) -> Self:
        # A claim says why this code's verdict is what it is: a `Claim` on a pass would tell a reader the error is
        # not raised, a `Worded` on a failure that it was (a hand-edited or merged-wrong report), so neither loads.
        explains = {Claim: Code.NOT_APPLICABLE, Worded: Code.RAISED_AS_DOCUMENTED}
        if self.claim is not None and explains[type(self.claim)] is not self.code:
            raise ValueError(f"its {type(self.claim).__name__} claim explains a verdict of code "
                             f"{explains[type(self.claim)].value}, and this record's code is {self.code.value}: "
                             f"remove its `claim`, or re-verify the check")
        return self

    @property
    def said(self) -> str:
        """Why, as a reader is told it now: the claim worded now where the record keeps one, else the stored reason
        with any range the verifier's sentence named in words (`said_of`). What every view shows, never `reason`."""
        return said_of(self.code, self.reason, self.claim)

    @property
    def because(self) -> tuple[Outcome, Code, str]:
        """What makes two records' verdicts one to a reader, whatever the stored words: the outcome, the code and the
        claim as it is read now (two specifiers a reader cannot tell apart, ">=4.49,<5.13" and ">=4.49,<=5.12", are
        one claim; a record of the claim's days before `claim` was kept reads the same from its reason)."""
        return self.outcome, self.code, self.said

    @property
    def raise_site(self) -> Site | None:
        return self.exception.raise_site if self.exception else None

    @property
    def named(self) -> str:
        """The id of the check this record's fields name (`check_id`): what its `id` must be."""
        return check_id(self.entry, self.role, self.target, self.device)

    @property
    def written(self) -> str:
        """When this record entered a report: what decides which of two records of a check is newer."""
        return self.recorded_at or self.verified_at


__all__ = ["BUNDLED", "PASSES", "TARGETS", "UPSTREAM", "WORDED", "ApiFacts", "Calls", "CheckRecord", "Claim", "Code",
           "DeviceBasis", "ExceptionInfo", "Exit", "Outcome", "RaisedCall", "Site", "Start", "Worded", "check_id",
           "said_of", "unrooted", "worded"]
