"""A problem found in an author's file, reported as `path:line:col: message`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from errorkb.core.logsafe import defuse

# What a terminal or a log acts on, or that reorders the text around it: C0 (line breaks and tabs
# included: a problem is one line), DEL, C1, zero-width and bidirectional marks, line separators;
# and lone surrogates (a file name's byte that is not UTF-8), which a terminal's filter drops: the
# author would look for a file of another name.
_ACTING = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2028\u2029\u2060-\u2069\ufeff"
                     "\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


@dataclass(frozen=True, order=True)
class Problem:
    """One located problem. Its path and message often quote the author (an unknown key, a file
    name, a value), and they are printed by `errorkb check`, `mkdocs serve` and the CI's build log:
    each character such a reader acts on is written as its escape (`\\x1b`, `\\n`, `\\u202e`) and
    each log command is broken (`##[\\error`), when the problem is made, for every reader at once."""

    path: str
    line: int
    col: int
    message: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "path", quoted(self.path))
        object.__setattr__(self, "message", quoted(self.message))

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.message}"


def quoted(text: str) -> str:
    """`text` on one line, as a terminal or a CI log shows it without acting on any of it."""
    if _ACTING.search(text):
        text = _ACTING.sub(lambda found: _escape(found.group()), text)
    return defuse(text) if "::" in text or "##" in text else text


def _escape(char: str) -> str:
    code = ord(char)
    return _NAMED.get(char) or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")


class ProblemsFound(Exception):
    """Raised by code paths that cannot go on; carries every problem, already sorted."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(map(str, self.problems)))


def display_path(path: Path, root: Path) -> str:
    """Paths relative to the project root when inside it, so messages are short and clickable. A
    path that cannot be resolved (a symlink loop) is named as written: a problem about such a
    file must still be reported, never become a traceback. The file itself is named, never what it links to (a
    problem with a link, dangling or leading out, named the file it pointed at)."""
    try:
        return (path.parent.resolve() / path.name).relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)
    except (OSError, RuntimeError):  # RuntimeError: Python < 3.13's resolve() on a loop
        try:
            return path.absolute().relative_to(root.absolute()).as_posix()
        except ValueError:
            return str(path)
