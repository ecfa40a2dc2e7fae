"""Text from strangers (snippet output, exception messages, entry text), made inert wherever a
terminal or a CI log shows it.

A terminal acts on escape sequences and control characters (colours, cursor moves, window
titles, OSC 8 links); a CI log acts on workflow commands: GitHub Actions reads `::error::...`
at the start of a line (after any leading whitespace) and, in its older form, `##[error]...`
anywhere in a line, as TeamCity (`##teamcity[`) and Azure Pipelines (`##vso[`) do theirs. A
snippet that prints one could annotate a pull request as passed, mask text, or stop the log's
command processing. So:

- `strip_controls` drops every escape sequence and control character but tab and newline,
  bidirectional overrides, every character that shows nothing (`prose.INVISIBLE`) and lone
  surrogates (bytes that were not UTF-8, surrogate-escaped); a line or paragraph separator
  becomes a newline;
- `defuse` breaks every command form the way the GitHub runner itself breaks its own markers
  in user output (`##[\\start-action`): a backslash after the opening `::` or `[`, so the line
  reads the same to a person and is plain text to the log.

`log_safe` does both; `errorkb.cli`'s consoles apply it to everything they print.
"""

from __future__ import annotations

import re

from errorkb.core.prose import INVISIBLE, STRAY_PRESENTATION

_CONTROL = re.compile(rf"""
      \x1b\[ [0-?]* [ -/]* [@-~]                                 # CSI: colours, cursor moves, erasing
    | \x9b [0-?]* [ -/]* [@-~]                                   # the same, 8-bit
    | (?: \x1b[\]PX^_] | [\x9d\x90\x98\x9e\x9f] ) [^\x07\x1b\x9c]* (?: \x07 | \x1b\\ | \x9c )?  # OSC, DCS...
    | \x1b [ -~]?                                                # any other escape (ESC c resets)
    | [\x00-\x08\x0b-\x1f\x7f-\x9f]                              # C0 and C1 controls but tab and newline
    | [{INVISIBLE}]                                             # what shows nothing: zero-width, bidi, tags...
    | {STRAY_PRESENTATION}                                       # a presentation selector after no symbol
    | [\ud800-\udfff]                                            # lone surrogates: undecoded bytes, unprintable
""", re.VERBOSE)
_SEPARATORS = re.compile(r"\r\n?|[\u2028\u2029]")
# `::` opening a line (after any whitespace, as .NET's TrimStart sees it, and any colour codes a
# terminal keeps); a line starts after \n, \r or a Unicode line separator
_LINE_COMMAND = re.compile(r"(\A|[\n\r\x85\u2028\u2029])([^\S\n\r]*(?:\x1b\[[0-?]*[ -/]*[@-~][^\S\n\r]*)*)::")
# `##[`, `##vso[`, `##teamcity[` anywhere
_INLINE_COMMAND = re.compile(r"##([A-Za-z]*)\[(?!\\)")  # (one already defused is left alone)


def strip_controls(text: str) -> str:
    return _CONTROL.sub("", _SEPARATORS.sub("\n", text))


def unshown(text: str) -> list[str]:
    """The characters of `text` a terminal does not show as themselves, each once, in order: what
    `strip_controls` drops or makes a line break, and tab and newline. A name holding one (a folder's)
    prints as another name, or on two lines, wherever errorkb prints it."""
    return list(dict.fromkeys(char for char in text if char in "\t\n" or strip_controls(char) != char))


def defuse(text: str) -> str:
    """`text` with no workflow command a CI log would act on; colour codes are left alone."""
    text = _LINE_COMMAND.sub(lambda found: f"{found.group(1)}{found.group(2)}:\\:", text)
    return _INLINE_COMMAND.sub(lambda found: f"##{found.group(1)}[\\", text)


def log_safe(text: str) -> str:
    """`text` as a terminal or a CI log may show it: no control sequence, no workflow command."""
    return defuse(strip_controls(text))


__all__ = ["defuse", "log_safe", "strip_controls", "unshown"]
