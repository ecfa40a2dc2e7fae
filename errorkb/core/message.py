"""Message templates: the f-string text of a `raise`, matched against real messages.

An entry stores the message exactly as the source writes it, e.g.
``"`head_dim` was provided as a list of length {len(num_heads)}, but ..."``. Each ``{...}``
is a placeholder that matched anything at run time; ``{{`` and ``}}`` are literal braces.
The same matcher serves the verifier (does the captured message fit?) and the lookup
(which entry does a pasted message belong to?), so both always agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property


class TemplateSyntaxError(ValueError):
    """A template with an unbalanced brace; the message says where."""


@dataclass(frozen=True)
class Literal:
    text: str


@dataclass(frozen=True)
class Placeholder:
    expression: str  # the text between the braces, e.g. "len(num_heads)"


_OPENERS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class MessageTemplate:
    source: str
    parts: tuple[Literal | Placeholder, ...]

    @classmethod
    def parse(cls, source: str) -> MessageTemplate:
        parts: list[Literal | Placeholder] = []
        literal: list[str] = []
        i = 0
        while i < len(source):
            char = source[i]
            if source.startswith("{{", i) or source.startswith("}}", i):
                literal.append(char)
                i += 2
            elif char == "{":
                end = _closing_brace(source, i)
                if literal:
                    parts.append(Literal("".join(literal)))
                    literal = []
                expression = source[i + 1 : end].strip()
                if not expression:
                    raise TemplateSyntaxError(f"empty placeholder {{}} at character {i + 1}")
                parts.append(Placeholder(expression))
                i = end + 1
            elif char == "}":
                raise TemplateSyntaxError(
                    f"unmatched '}}' at character {i + 1}; write '}}}}' for a literal brace"
                )
            else:
                literal.append(char)
                i += 1
        if literal:
            parts.append(Literal("".join(literal)))
        return cls(source, tuple(parts))

    @property
    def placeholders(self) -> list[str]:
        seen: dict[str, None] = {}
        for part in self.parts:
            if isinstance(part, Placeholder):
                seen.setdefault(part.expression)
        return list(seen)

    @property
    def literal_text(self) -> str:
        """The fixed words, placeholders dropped: what search and ranking look at."""
        return " ".join(part.text for part in self.parts if isinstance(part, Literal))

    @cached_property
    def _compiled(self) -> tuple[re.Pattern[str], dict[str, str]]:
        """The regex, and its group names mapped back to placeholder expressions."""
        groups: dict[str, str] = {}
        pattern: list[str] = []
        for part in self.parts:
            if isinstance(part, Literal):
                pattern.append(re.escape(part.text))
            elif part.expression in groups:  # the same expression twice renders the same text
                pattern.append(f"(?P={groups[part.expression]})")
            else:
                groups[part.expression] = f"p{len(groups)}"
                pattern.append(f"(?P<{groups[part.expression]}>.*?)")
        names = {group: expression for expression, group in groups.items()}
        return re.compile("".join(pattern), re.DOTALL), names

    def match(self, message: str) -> dict[str, str] | None:
        """Placeholder values if `message` is an instance of this template, else None."""
        regex, names = self._compiled
        found = regex.fullmatch(message)
        return None if found is None else {names[g]: v for g, v in found.groupdict().items()}

    def search(self, text: str) -> dict[str, str] | None:
        """Like `match`, but the message may sit inside a longer text (a pasted traceback)."""
        regex, names = self._compiled
        found = regex.search(text)
        return None if found is None else {names[g]: v for g, v in found.groupdict().items()}


def _closing_brace(source: str, start: int) -> int:
    """Index of the `}` closing the placeholder opened at `start`, brackets nested."""
    stack = ["}"]
    quote: str | None = None
    for i in range(start + 1, len(source)):
        char = source[i]
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in _OPENERS:
            stack.append(_OPENERS[char])
        elif char in ")]}":
            if char != stack[-1]:
                break
            stack.pop()
            if not stack:
                return i
    raise TemplateSyntaxError(
        f"placeholder opened at character {start + 1} is never closed; write '{{{{' for a literal brace"
    )
