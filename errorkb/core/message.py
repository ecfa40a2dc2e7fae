"""Message templates: the f-string text of a `raise`, matched against real messages.

An entry stores the message exactly as the source writes it, e.g.
``"`head_dim` was provided as a list of length {len(num_heads)}, but ..."``. Each ``{...}``
is a placeholder that matched anything at run time; ``{{`` and ``}}`` are literal braces.
The same matcher serves the verifier (does the captured message fit?) and the lookup
(which entry does a pasted message belong to?), so both always agree.

Matching, piece by piece (errorkb/site/assets/lookup.js implements the same steps, and the
parity test holds it to them). A template is
fixed pieces with placeholders between them. Each fixed piece is found in order, at its first
occurrence after the previous one: a placeholder takes any text, the empty text included, and
the shortest that lets the next piece be found (what a lazy ``(.*?)`` took before, without the
backtracking that made a 12 KB paste take seconds). `match` pins the first piece to the start
and the last to the end; `search` takes the first occurrence of the first piece, then moves the
start to the last occurrence of that piece before the second one (a quote that opens a class's name,
not an apostrophe earlier in the sentence), and a placeholder at the very end is then empty. A
placeholder repeated with the same expression must stand for the same text in that first fit: no
other split is tried (trying them all is what backtracks without bound). So the work is one scan
of the text per piece, linear in its size.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
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
_BRACE = re.compile(r"[{}]")


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
            brace = _BRACE.search(source, i)
            if brace is None:  # the rest is literal text
                literal.append(source[i:])
                break
            literal.append(source[i:brace.start()])
            i = brace.start()
            char = source[i]
            if source.startswith("{{", i) or source.startswith("}}", i):
                literal.append(char)
                i += 2
            elif char == "{":
                end = _closing_brace(source, i)
                if "".join(literal):
                    parts.append(Literal("".join(literal)))
                literal = []
                expression = source[i + 1 : end].strip()
                if not expression:
                    raise TemplateSyntaxError(f"empty placeholder {{}} at character {i + 1}")
                parts.append(Placeholder(expression))
                i = end + 1
            else:
                raise TemplateSyntaxError(
                    f"unmatched '}}' at character {i + 1}; write '}}}}' for a literal brace"
                )
        if "".join(literal):
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
    def pieces(self) -> tuple[str, ...]:
        """The fixed text between placeholders: one more than there are placeholders, the
        first and last possibly empty (a template that starts or ends with a placeholder)."""
        pieces, current = [], ""
        for part in self.parts:
            if isinstance(part, Literal):
                current += part.text
            else:
                pieces.append(current)
                current = ""
        return (*pieces, current)

    @cached_property
    def slots(self) -> tuple[str, ...]:
        """Each placeholder's expression, in order, repeats included."""
        return tuple(part.expression for part in self.parts if isinstance(part, Placeholder))

    def match(self, message: str, meter: Meter | None = None) -> dict[str, str] | None:
        """Placeholder values if `message` is an instance of this template, else None."""
        return self._fit(message, True, meter or Meter())

    def search(self, text: str, meter: Meter | None = None) -> dict[str, str] | None:
        """Like `match`, but the message may sit inside a longer text (a pasted traceback)."""
        return self._fit(text, False, meter or Meter())

    def prefix(self, text: str, meter: Meter | None = None, at: int | None = None) -> dict[str, str] | None:
        """The values of a text that holds this template's beginning, cut short: the first fixed
        piece found, then each later piece on the same line while it is found; the placeholder
        where the text stops takes the rest of the line. None when the first piece has fewer than
        `MIN_PIECE` letters and digits (too little to place the template by) or is not found. A
        title that lost its end still says what it named: "cannot import name 'Cache' from
        'aiocache'" names another module than the one a longer wording requires."""
        meter = meter or Meter()
        pieces = self.pieces
        if len(pieces) == 1 or sum(map(str.isalnum, pieces[0])) < MIN_PIECE:  # too little to place it by
            return None
        if at is None:  # (the caller may know where the first piece is)
            at = _find(text, pieces[0], 0, len(text), meter)
        if at < 0:
            return None
        position = at + len(pieces[0])
        newline = text.find("\n", position)
        end = len(text) if newline < 0 else newline
        meter.work += end - position
        values = []
        for index, piece in enumerate(pieces[1:], 1):
            found = _find(text, piece, position, end, meter) if piece else end
            if found < 0:  # the text stops here; whatever it holds of the piece is not the value
                value = text[position:end]
                close = _closing_quote(pieces[index - 1], piece, value, meter)
                if close >= 0:  # what follows a quoted name's closing quote is not the name
                    values.append(value[:close])
                    break
                cut = next((k for k in range(min(len(piece), len(value)), 0, -1) if value.endswith(piece[:k])), 0)
                values.append(value[:len(value) - cut])
                break
            values.append(text[position:found])
            position = found + len(piece)
        named: dict[str, str] = {}
        for slot, value in zip(self.slots, values, strict=False):
            named.setdefault(slot, value)
        return named

    def _fit(self, text: str, whole: bool, meter: Meter) -> dict[str, str] | None:
        """The piece-by-piece fit described in the module docstring."""
        pieces = self.pieces
        first, last = pieces[0], pieces[-1]
        if whole and len(pieces) == 1:
            meter.work += len(first)
            return {} if text == first else None
        if whole:
            meter.work += len(first) + len(last)
            end = len(text) - len(last)
            if end < len(first) or not text.startswith(first) or not text.endswith(last):
                return None
            position = len(first)
        else:
            at = _find(text, first, 0, len(text), meter)
            if at < 0:
                return None
            if len(pieces) == 1:
                return {}
            end, position = len(text), at + len(first)
        values = []
        for piece in pieces[1:-1]:
            found = _find(text, piece, position, end, meter)
            if found < 0:
                return None
            values.append(text[position:found])
            position = found + len(piece)
        if whole:
            values.append(text[position:end])
        else:
            found = _find(text, last, position, end, meter)
            if found < 0:
                return None
            values.append(text[position:found])
            if first:  # found inside a text, it starts at the first piece nearest its next words: an
                # apostrophe earlier in a sentence (`AutoRound's ... 'Cache' object has ...`) does not
                meter.work += len(values[0])
                cut = values[0].rfind(first)
                if cut >= 0:
                    values[0] = values[0][cut + len(first):]
        return self._named(values)

    def _named(self, values: list[str]) -> dict[str, str] | None:
        """Values by expression; None when a repeated expression stood for two texts."""
        named: dict[str, str] = {}
        for slot, value in zip(self.slots, values, strict=True):
            if named.setdefault(slot, value) != value:
                return None
        return named


QUOTES = "'\""  # a placeholder written between two of the same (`from '{module}'`) is a quoted name


def _closing_quote(before: str, after: str, value: str, meter: Meter) -> int:
    """Where a quoted placeholder's value ends in the rest of a line cut short: at its closing quote
    (-1: not quoted, or no quote in the rest). A name Python quotes holds no quote, and the text after
    it is no part of it: a Markdown code span's backtick, a full stop, a bracket, prose (corpus h235,
    h236: an import error's message quoted as Markdown code, `` `cannot import name 'X' from 'pkg'` ``)."""
    quote = after[:1]
    if not quote or quote not in QUOTES or not before.endswith(quote):
        return -1
    close = value.find(quote)
    meter.work += len(value) if close < 0 else close + 1
    return close


class Meter:
    """Characters a scan may examine, added up: the lookup's deterministic measure of work.

    Tests assert that it grows linearly with the paste (wall-clock time would be flaky), and
    the JavaScript port counts the same way, so equal counts show equal algorithms."""

    __slots__ = ("work",)

    def __init__(self) -> None:
        self.work = 0


def _find(text: str, piece: str, start: int, end: int, meter: Meter) -> int:
    """`text.find(piece, start, end)`, counting what the scan may have examined."""
    found = text.find(piece, start, end)
    meter.work += end - start if found < 0 else found + len(piece) - start
    return found


# -- where a message stops fitting -------------------------------------------------------------

DIFFERENCE_LIMIT = 1 << 14  # characters of a message examined: failure views show short messages


def first_difference(template: MessageTemplate, message: str) -> int | None:
    """The index in `message` of the first character where it stops fitting `template` (None
    when it fits), so a failure view can point at it instead of leaving a reader to compare two
    110-character lines by eye.

    Piece by piece, as `match` fits them: the first fixed piece must start the message; each
    later piece is placed at its first whole occurrence (the last: at the message's end). Where a
    piece has no such place, it is placed where its longest prefix first occurs, and the message
    stops fitting right after that prefix. Each prefix length is found by bisection with
    `str.find`, so the work stays near-linear in the (capped) message."""
    if template.match(message) is not None:
        return None
    text = message[:DIFFERENCE_LIMIT]
    pieces = template.pieces
    first = pieces[0]
    common = _common_prefix(text, first)
    if common < len(first):
        return common
    position = len(first)
    for index, piece in enumerate(pieces[1:], 1):
        last = index == len(pieces) - 1
        if not piece:
            continue
        if last:
            if text.endswith(piece) and len(text) - len(piece) >= position:
                return None  # fits but for a repeated placeholder's two values: nothing to point at
            found = text.rfind(piece, position)
            if found >= 0:  # the message goes on after the template ended
                return found + len(piece)
        else:
            found = text.find(piece, position)
            if found >= 0:
                position = found + len(piece)
                continue
        length = _longest_prefix_found(text, piece, position)
        return text.find(piece[:length], position) + length if length else position
    return min(position, len(text))


def _common_prefix(text: str, piece: str) -> int:
    count = 0
    for a, b in zip(text, piece, strict=False):
        if a != b:
            break
        count += 1
    return count


def _longest_prefix_found(text: str, piece: str, start: int) -> int:
    """The length of the longest prefix of `piece` found in `text` from `start` (bisection: a
    prefix that occurs implies every shorter one does)."""
    low, high = 0, len(piece)
    while low < high:
        middle = (low + high + 1) // 2
        if text.find(piece[:middle], start) >= 0:
            low = middle
        else:
            high = middle - 1
    return low


# -- how much fixed text a template has ---------------------------------------------------------

MIN_FIXED = 8  # letters and digits in all the fixed text together
MIN_PIECE = 6  # ... and in the longest fixed piece, when the template has placeholders
FILLER = "\x00"  # stands for a placeholder when comparing with Python's own wordings

# Messages the interpreter words the same way for every program: a template that fixes nothing
# beyond one of these leaves what identifies the error to its placeholders. A runtime plug adds
# its own (`Runtime.generic_messages`); the site's index carries the whole list to the page.
GENERIC_WORDINGS = (
    "'{a}' object has no attribute '{b}'",
    "type object '{a}' has no attribute '{b}'",
    "module '{a}' has no attribute '{b}'",
    "name '{a}' is not defined",
    "cannot import name '{a}' from '{b}'",
    "No module named '{a}'",
    "{a}() got an unexpected keyword argument '{b}'",
    "{a}() takes {b} positional arguments but {c} were given",
    "{a}() missing {b} required positional argument: '{c}'",
    "'{a}' object is not subscriptable",
    "'{a}' object is not callable",
    "'{a}' object is not iterable",
    "object of type '{a}' has no len()",
    "unsupported operand type(s) for {a}: '{b}' and '{c}'",
    "too many values to unpack (expected {a})",
    "not enough values to unpack (expected {a}, got {b})",
)


@dataclass(frozen=True)
class FixedText:
    """How much a template pins down: letters and digits (whitespace and punctuation do not
    tell one error from another) in all its fixed text, and in its longest fixed piece."""

    total: int
    longest: int


def fixed_text(template: MessageTemplate) -> FixedText:
    counts = [sum(map(str.isalnum, piece)) for piece in template.pieces]
    return FixedText(sum(counts), max(counts))


def is_degenerate(template: MessageTemplate | str, generic: Iterable[str] = GENERIC_WORDINGS) -> str | None:
    """Why `template` is too generic to identify an error (it would match almost any
    message, or every error of its kind), or None when it is specific enough.

    The lookup ignores such templates, so that no paste is claimed by `{msg}`; the loader
    reports them where an entry is written."""
    if isinstance(template, str):
        template = MessageTemplate.parse(template)
    measure = fixed_text(template)
    if measure.total < MIN_FIXED:
        return (f"its fixed text has {measure.total} letters or digits (at least {MIN_FIXED} needed): "
                "it would match almost any message")
    if not template.slots:
        return None
    if measure.longest < MIN_PIECE:
        return (f"its longest fixed piece has {measure.longest} letters or digits (at least {MIN_PIECE} needed "
                "when there are placeholders): it would match almost any message")
    filled = FILLER.join(template.pieces)
    for wording in _parsed(tuple(generic)):
        values = wording.match(filled)
        if values is not None and all(value and not value.strip(FILLER) for value in values.values()):
            return (f"it fixes nothing beyond the wording every such error has ({wording.source}): "
                    "its placeholders hold whatever identifies the error")
    return None


@functools.lru_cache(maxsize=16)
def _parsed(generic: tuple[str, ...]) -> tuple[MessageTemplate, ...]:
    """The generic wordings, parsed once per list."""
    return tuple(MessageTemplate.parse(wording) for wording in generic)


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
