"""Where a JSON or TOML text nests lists and tables deeper than a limit, found without parsing it.

Python's JSON and TOML parsers recurse once per level: a file a few kilobytes long (100,000 `[`)
ends them with a RecursionError, which no caller expects, and a file nested a few hundred deep
parses but cannot be written back (pydantic's and json's writers recurse too). The files errorkb
reads (reports, the version matrix, pyproject.toml) nest a handful of levels; deeper is refused,
and this says at which line, for the message.
"""

from __future__ import annotations

import re

# A quoted string (skipped whole: its brackets are text), or a bracket. TOML's literal strings
# ('...') and multi-line strings are read as approximately: this only locates, the limit decides.
_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'[^\'\n]*\'|[\[\]{}]')


def line_past(text: str, limit: int) -> int | None:
    """The line at which brackets open more than `limit` deep in `text`, or None where they never do."""
    depth = 0
    for token in _TOKEN.finditer(text):
        char = token.group()
        if char in "[{":
            depth += 1
            if depth > limit:
                return text.count("\n", 0, token.start()) + 1
        elif char in "]}":
            depth = max(depth - 1, 0)
    return None


def depth_of(value: object) -> int:
    """How deep lists and mappings nest in `value` (a parsed document), level by level, without recursing."""
    depth, level = 0, [value] if isinstance(value, (dict, list)) else []
    while level:
        depth += 1
        level = [child for item in level for child in (item.values() if isinstance(item, dict) else item)
                 if isinstance(child, (dict, list))]
    return depth
