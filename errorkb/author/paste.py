"""A pasted traceback, read for authoring: its frames (file, line, function, code line) and
the exception that surfaced (name and message).

The paste goes through the lookup's own reading (`errorkb.lookup`: its last 64 KiB, BOMs, CRs,
ANSI colours, `[rank0]: `/`E   `/timestamp prefixes, Python's "Did you mean" hint; the same
candidates and the same frames the matcher grades with), then every remaining control
character goes, so nothing a terminal would act on reaches a file. Every scan is one pass
without backtracking over pasted text: the work stays linear in the (capped) paste.
"""

from __future__ import annotations

from dataclasses import dataclass

from errorkb.core.logsafe import strip_controls
from errorkb.lookup import Candidate, Frame, candidates, frames, keep_tail, message_lines, normalize

_TRACEBACK = "Traceback (most recent call last):"

__all__ = ["Frame", "Pasted", "clean", "read_paste"]


@dataclass(frozen=True)
class Pasted:
    frames: tuple[Frame, ...]  # of the last traceback of the paste, outermost first
    exception: str | None  # the name before the message, e.g. ValueError, or a dotted name
    message: str  # the message of the exception that surfaced (the line that ends the last traceback)
    cut: int  # characters dropped from the start of a long paste
    whole: str = ""  # that message with the lines it goes on over (the lookup's `message_lines`)


def clean(text: str) -> str:
    """`text` with every control character but tab and newline removed."""
    return strip_controls(text)


def read_paste(pasted: str) -> Pasted:
    """The frames and the exception of a pasted traceback (or of a bare message)."""
    kept = keep_tail(pasted)
    text = clean(normalize(kept))
    last = text.rfind(_TRACEBACK)
    found = [frame for frame in frames(text) if frame.at >= last]
    options = candidates(text)
    first = _ending(text, options, found) or (options[0] if options else None)
    exception = first.exception if first else None
    message = first.message if first and first.exception else text.strip()
    whole = "\n".join([message, message_lines(text, first.at)]).rstrip() if first and first.exception else ""
    return Pasted(tuple(found), exception, message, len(pasted) - len(kept), whole)


def _ending(text: str, options: list[Candidate], found: list[Frame]) -> Candidate | None:
    """The exception line that ends the last traceback: the first unindented one under its last frame.
    A message may go on over lines that read as `name: text` themselves (PyYAML's marks quote the
    document), and a log may print more after the traceback: neither is the error that surfaced.
    Its first line here; `Pasted.whole` keeps the lines it goes on over."""
    if not found:
        return None
    under = [one for one in options if one.exception is not None and one.at > found[-1].at
             and text[one.at] not in " \t" and "\n" not in one.message]
    return min(under, key=lambda one: one.at, default=None)

