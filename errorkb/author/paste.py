"""A pasted traceback, read for authoring: its frames (file, line, function, code line) and
the exception that surfaced (name and message).

The paste goes through the lookup's own reading first (`errorkb.site.lookup`: its last 64 KiB,
BOMs, CRs, ANSI colours, `[rank0]: `/`E   `/timestamp prefixes, Python's "Did you mean" hint),
then every remaining control character goes, so nothing a terminal would act on reaches a file.
Every scan is one regular-expression pass without backtracking over pasted text: the work stays
linear in the (capped) paste.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from errorkb.site.lookup import candidates, keep_tail, normalize

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]")
_FRAME = re.compile(r'^[ \t]*File "([^"\n]{1,4096})", line ([0-9]{1,9}), in ([^\n]{1,300})$', re.MULTILINE)
_MARKERS = re.compile(r"^[ \t~^]*$")  # Python 3.11's  ~~~^^^^  position lines
_TRACEBACK = "Traceback (most recent call last):"


@dataclass(frozen=True)
class Frame:
    path: str  # as printed, with forward slashes
    line: int
    function: str  # as printed: the code object's name
    code: str | None  # the source line printed under it, stripped


@dataclass(frozen=True)
class Pasted:
    frames: tuple[Frame, ...]  # of the last traceback of the paste, outermost first
    exception: str | None  # the name before the message, e.g. ValueError, or a dotted name
    message: str  # the message of the exception that surfaced (the paste's last exception line)
    cut: int  # characters dropped from the start of a long paste


def clean(text: str) -> str:
    """`text` with every control character but tab and newline removed."""
    return _CONTROL.sub("", text)


def read_paste(pasted: str) -> Pasted:
    """The frames and the exception of a pasted traceback (or of a bare message)."""
    kept = keep_tail(pasted)
    text = clean(normalize(kept))
    last = text.rfind(_TRACEBACK)
    frames = _frames(text[last:] if last >= 0 else text)
    found = candidates(text)
    first = found[0] if found else None
    exception = first.exception if first else None
    message = first.message if first and first.exception else text.strip()
    return Pasted(tuple(frames), exception, message, len(pasted) - len(kept))


def _frames(text: str) -> list[Frame]:
    frames = []
    for found in _FRAME.finditer(text):
        code = _code_line(text, found.end() + 1)
        frames.append(Frame(found.group(1).replace("\\", "/"), int(found.group(2)), found.group(3).strip(), code))
    return frames


def _code_line(text: str, start: int) -> str | None:
    """The line after a frame line when it is the frame's code (indented, not another frame)."""
    if start >= len(text):
        return None
    end = text.find("\n", start)
    line = text[start:end if end >= 0 else len(text)]
    if not line.startswith((" ", "\t")) or line.lstrip().startswith('File "') or _MARKERS.match(line):
        return None
    return line.strip() or None
