"""The harness reads a check's stream: lines the check's process wrote as things happened (`observer.py`).

A stream is trusted line by line, never as a whole, and only under the key the check's process
handed over before the snippet existed (`inside/seal.py`):

- a line is the verifier's only when its seal holds under that key; any other line (garbage,
  a forgery, a line cut in two) is one the verifier did not write, and the check fails;
- the first line is the verifier's `start` (written before any snippet code existed): it names
  the pid of the check's process and the SHA-256 of the bytes that ran;
- that process's lines are numbered 0, 1, 2...: a number missing or out of place (a line lost, or
  taken) fails the check;
- lines of another process (a snippet's fork inherits the pipe and the observer) count only when
  they report tampering;
- the outcome is the `end` line alone, the last of the check's own process, and only when the
  observer says it never faulted; a stream without one (the process was killed, or left through
  `posix._exit`) has no outcome: the process's own end says what happened.

`read_stream` turns a stream into the `Observation` the judge reads, or says why it has none.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from errorkb.verify.inside.seal import unseal
from errorkb.verify.records import (
    ApiFacts,
    Calls,
    ExceptionInfo,
    Observation,
    RaisedCall,
    Site,
    Start,
    Status,
)

MAX_STREAM = 8 << 20  # bytes of a stream the harness keeps; a longer one is cut, and fails
_EARLY = {"setup-failed", "no-function", "no-device", "syntax-error"}


class _Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    n: int  # its place in the writing process's sequence
    p: int  # the writing process


class StartEvent(_Event):
    e: Literal["start"]
    sha256: str
    slots: list[list[str]] = Field(default_factory=list)  # [label, kind] per watched function
    device: str | None = None


class RaisedEvent(_Event):
    e: Literal["raised"]
    r: int
    w: int
    where: Literal["target", "snippet", "library", "beneath"]
    code: str | None = None  # the qualified name of the code it started in
    type: str
    qualified: str | None = None
    message: str | None = None
    line: int | None = None
    op: str | None = None
    file: str | None = None
    module: str | None = None
    api: dict[str, Any] | None = None


class UnwoundEvent(_Event):
    e: Literal["unwound"]
    w: int
    type: str
    message: str | None = None
    qualified: str | None = None
    r: int | None = None


class TamperEvent(_Event):
    e: Literal["tamper"]
    kind: Literal["replaced", "observer", "forged", "callback"]
    what: str


class FaultEvent(_Event):
    e: Literal["fault"]
    what: str


class EndEvent(_Event):
    e: Literal["end"]
    status: str
    exit: int | str | None = None
    r: int | None = None
    # The top exception's class as the observer names it, by identity (`builtins.X` of Python's own X alone): what
    # the judge reads, never the class's own `__module__` that the harness's description repeats.
    type: str | None = None
    qualified: str | None = None
    described: dict[str, Any] | None = None
    counts: list[list[int]] = Field(default_factory=list)
    running: list[int] = Field(default_factory=list)
    unwound: list[int] = Field(default_factory=list)
    device: dict[str, Any] | None = None
    duration: float | None = None
    # How the handed-error search was answered: walked ("handed"), or by the reference count (`_p_unreferenced`).
    searched: dict[str, int] | None = None
    faults: int = 0  # times the observer's own code failed; anything but 0 voids the observation


_KINDS: dict[str, type[_Event]] = {"start": StartEvent, "raised": RaisedEvent, "unwound": UnwoundEvent,
                                   "tamper": TamperEvent, "fault": FaultEvent, "end": EndEvent}


@dataclass
class Stream:
    """What a stream says, line by line, before it becomes an observation."""

    start: StartEvent | None = None
    raised: dict[int, RaisedEvent] = field(default_factory=dict)
    unwound: list[UnwoundEvent] = field(default_factory=list)
    tampered: list[TamperEvent] = field(default_factory=list)
    faults: list[str] = field(default_factory=list)
    end: EndEvent | None = None
    foreign: list[str] = field(default_factory=list)  # lines the verifier did not write (first few, cut)
    after_end: int = 0
    cut: bool = False
    gap: str | None = None  # where the check's own lines are not numbered 0, 1, 2...
    unsealed: bool = False  # no key: nothing in the stream can be the verifier's


def parse(data: bytes, key: bytes | None) -> Stream:
    stream = Stream(cut=len(data) >= MAX_STREAM)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    if key is None:
        stream.unsealed = True
        return stream
    if not lines:
        return stream
    first = _event(lines[0], key)
    if not isinstance(first, StartEvent) or first.n != 0:
        stream.foreign.append(_show(lines[0]))
        return stream
    stream.start = first
    expected = 1
    for line in lines[1:]:
        event = _event(line, key)
        if event is None or isinstance(event, StartEvent):
            stream.foreign.append(_show(line))
            continue
        if event.p != first.p:  # another process: a fork of the snippet's; only its tampering counts
            if isinstance(event, TamperEvent):
                stream.tampered.append(event)
            continue
        if event.n != expected and stream.gap is None:
            stream.gap = f"line {expected} of the check's process is missing (the next one is {event.n})"
        expected = event.n + 1
        if stream.end is not None:
            stream.after_end += 1
            continue
        if isinstance(event, RaisedEvent):
            stream.raised[event.r] = event
        elif isinstance(event, UnwoundEvent):
            stream.unwound.append(event)
        elif isinstance(event, TamperEvent):
            stream.tampered.append(event)
        elif isinstance(event, FaultEvent):
            stream.faults.append(event.what)
        elif isinstance(event, EndEvent):
            stream.end = event
    return stream


def _event(line: bytes, key: bytes) -> _Event | None:
    body = unseal(key, line)
    if body is None:
        return None
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    name = data.get("e")
    kind = _KINDS.get(name) if isinstance(name, str) else None
    if kind is None:
        return None
    try:
        return kind.model_validate(data)
    except ValidationError:
        return None


def _show(line: bytes) -> str:
    text = line[:120].decode("utf-8", errors="replace")
    return text + ("..." if len(line) > 120 else "")


@dataclass
class Reading:
    """A stream, read: the observation (None without an end), why it must be rejected if it must,
    and the hash of the bytes that ran (from the start line)."""

    observation: Observation | None
    rejected: str | None = None
    sha256: str | None = None
    ended: bool = False
    exit: int | str | None = None  # what the end says the process's exit status is
    status: str | None = None


def read_stream(data: bytes, key: bytes | None) -> Reading:
    """The observation in `data`, trusting only lines sealed under `key` (None: no key was handed over)."""
    stream = parse(data, key)
    sha256 = stream.start.sha256 if stream.start else None
    rejected = _rejected(stream)
    end = stream.end
    if end is None or stream.start is None:
        return Reading(None, rejected, sha256)
    try:
        observation = _observation(stream, end, stream.start)
    except (ValidationError, ValueError, TypeError) as error:
        replaced, other = _tampering(stream, [])
        # Tampering was announced before the end was written: it stays the first thing said.
        fallback = Observation(status=Status.RETURNED, tampered=replaced, interference=other) if replaced or other \
            else None
        return Reading(fallback, f"the observation stream's end does not describe an outcome ({_first(error)})",
                       sha256, True, end.exit, end.status)
    return Reading(observation, rejected, sha256, True, end.exit, end.status)


def _first(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        return f"{'.'.join(str(part) for part in first['loc']) or 'the document'}: {first['msg']}"
    return str(error)


def _rejected(stream: Stream) -> str | None:
    if stream.unsealed:
        return "the check's process never handed over its stream's key: nothing it streamed can be trusted"
    if stream.cut:
        return f"the observation stream went past {MAX_STREAM} bytes"
    if stream.foreign:
        many = len(stream.foreign)
        return (f"the observation stream holds {many} line{'s' if many > 1 else ''} the verifier did not write "
                f"(first: {stream.foreign[0]!r})")
    if stream.gap:
        return f"the observation stream has a gap: {stream.gap}"
    if stream.after_end:
        return f"the observation stream holds {stream.after_end} line(s) after the verifier's end"
    if stream.faults:
        return f"the verifier's observer failed: {stream.faults[0]}"
    if stream.end is not None and stream.end.faults:
        return f"the verifier's observer failed {stream.end.faults} time(s) while the snippet ran"
    return None


def _observation(stream: Stream, end: EndEvent, start: StartEvent) -> Observation:
    described = end.described or {}
    if end.status in _EARLY:
        return _early(end, described, start, stream)
    status = Status(end.status)
    slots = [tuple(slot) for slot in start.slots]
    calls = _calls(stream, end, slots, "function", first_only=True)
    old = _calls(stream, end, slots, "old")
    exception = _exception(described.get("exception"), stream.raised.get(end.r) if end.r is not None else None,
                           _through(stream, end.r, slots),
                           slots, end)
    replaced, other = _tampering(stream, slots)
    environment = described.get("environment")
    return Observation(status=status, exit_code=end.exit if status in (Status.SYS_EXIT, Status.OS_EXIT) else None,
                       exception=exception, calls=calls, old_calls=old, tampered=replaced, interference=other,
                       evidence=end.device, environment=environment if isinstance(environment, dict) else None,
                       duration_s=described.get("duration_s") if isinstance(described.get("duration_s"), float)
                       else end.duration, snippet_sha256=start.sha256)


def _tampering(stream: Stream, slots: list[tuple[str, ...]]) -> tuple[list[str], list[str]]:
    """What the snippet replaced (labels, sorted; `Cls.f` once, not again as `module.Cls.f`), and what
    else it did to the verifier (phrases, in the order they happened)."""
    replaced = sorted({event.what for event in stream.tampered if event.kind == "replaced"})
    qualname = slots[0][0] if slots else ""
    replaced = [what for what in replaced if what == qualname or not what.endswith("." + qualname)]
    other: list[str] = []
    for event in stream.tampered:
        if event.kind == "replaced":
            continue
        if event.kind == "observer":
            phrase = event.what
        elif event.kind == "callback":
            phrase = (f"ran its own code inside the library's call ({event.what}), which the entry does not declare "
                      "(allow: callback, with the reason)")
        else:
            phrase = ("compiled code under the name of a file of the library, the verifier or Python "
                      f"({_short(event.what)})")
        if phrase not in other:
            other.append(phrase)
    return replaced, other


def _short(path: str) -> str:
    """A file name as a reader needs it: from the package down, no folder of this machine."""
    parts = path.split("/")
    return "/".join(parts[-2:]) if len(parts) > 1 else path


def _early(end: EndEvent, described: dict[str, Any], start: StartEvent, stream: Stream) -> Observation:
    status = Status(end.status)
    slots = [tuple(slot) for slot in start.slots]
    environment = described.get("environment")
    exception = None
    if status is Status.SYNTAX_ERROR and isinstance(described.get("exception"), dict):
        exception = ExceptionInfo.model_validate(described["exception"])
    error = described.get("error")
    return Observation(status=status, error=error if isinstance(error, str) else None, exception=exception,
                       calls=_calls(stream, end, slots, "function", first_only=True),
                       environment=environment if isinstance(environment, dict) else None,
                       snippet_sha256=start.sha256)


def _calls(stream: Stream, end: EndEvent, slots: list[tuple[str, ...]], kind: str,
           first_only: bool = False) -> Calls | None:
    indexes = [index for index, slot in enumerate(slots) if slot[1] == kind]
    if first_only:
        indexes = indexes[:1]
    if not indexes:
        return None
    index = indexes[0]
    count, returned = end.counts[index] if index < len(end.counts) else (0, 0)
    raised = [RaisedCall(type=event.type, qualified_type=event.qualified,
                         message=event.message if event.message is not None
                         else "(its text could not be read when it was raised)")
              for event in stream.unwound if event.w == index]
    raised_count = end.unwound[index] if index < len(end.unwound) else len(raised)
    running = end.running[index] if index < len(end.running) else 0
    return Calls(function=slots[index][0], count=count, returned=returned, raised=raised,
                 raised_count=max(raised_count, len(raised)), running=running)


def _through(stream: Stream, number: int | None, slots: list[tuple[str, ...]]) -> list[str]:
    """The watched functions whose frames the exception held as `number` unwound, by identity."""
    if number is None:
        return []
    return sorted({slots[event.w][0] for event in stream.unwound if event.r == number and 0 <= event.w < len(slots)})


def _exception(described: Any, raised: RaisedEvent | None, through: list[str],
               slots: list[tuple[str, ...]], end: EndEvent) -> ExceptionInfo | None:
    if not isinstance(described, dict):
        return None
    facts = dict(described)
    # The class by the observer's name for it; a class's own claim (what the description holds) is never vouched for.
    facts["qualified_type"] = end.qualified
    if end.type is not None:
        facts["type"] = end.type
    start = None
    if raised is not None:
        label = slots[raised.w][0] if 0 <= raised.w < len(slots) else None
        start = Start(function=label if raised.where in ("target", "beneath") else None, where=raised.where,
                      code=raised.code,
                      type=raised.type,
                      qualified_type=raised.qualified, message=raised.message, line=raised.line, opcode=raised.op,
                      file=raised.file, module=raised.module, through=through)
        if raised.where in ("target", "beneath") and label is not None and raised.file and raised.line:
            facts["raise_site"] = Site(file=raised.file, function=label, line=raised.line, module=raised.module)
        if raised.api is not None:
            facts["api"] = ApiFacts(via=raised.api.get("via"), owner_is_target=bool(raised.api.get("owner_is_target")),
                                    name=raised.api.get("name"),
                                    absent_in_target=bool(raised.api.get("absent_in_target")))
    facts["started"] = start
    facts.setdefault("type", raised.type if raised else "?")
    if facts.get("message") is None:
        facts["message"] = ""
    return ExceptionInfo.model_validate(facts)


__all__ = ["MAX_STREAM", "Reading", "Stream", "parse", "read_stream"]
