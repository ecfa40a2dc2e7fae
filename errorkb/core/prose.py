"""What an entry's text may hold besides its length (`load.MAX_CHARS`): one definition, two users.

The loader refuses an entry whose text breaks a rule below, at the string's line, so `errorkb
check`, the site and `mkdocs serve` all see the same located problem; the site's `inert`
(`errorkb.site.inert`) applies the same bounds to text no loader checked (a report's free text),
neutralising what passes them, so that rendering stays linear whatever reaches it.

- **Characters.** No control character but tab and newline (C0, DEL and C1: a C1 character
  silently broke a page's front matter), no bidirectional override or isolate (they reverse the
  text around them on the page, in tags, search and the paste box's cards), no line separator.
  Titles are one line: no tab or newline either.
- **Structures whose rendering cost grows faster than their size** in Markdown engines, counted
  in prose (a fence's content is code, which costs nothing of the kind):
  - brackets: Python-Markdown rescans the rest of a paragraph for every `[` that opens a link,
    an image or a reference (`[`, `![`, `[*`, `[a](`): 20,000 in one field took a build from 9 s
    to 75 s;
  - nesting: lists and quotes inside each other recurse once per level (`- ` × 1,000, 2 KB,
    raised RecursionError); a line's depth is its container markers plus its indentation;
  - paragraphs: Python-Markdown rebuilds a paragraph's text for every inline element it finds
    in it (25,000 characters of `` `|` `` took 1.3 s, 100,000 took 25 s), so a paragraph holds at
    most `MAX_PARAGRAPH` characters; text is split into paragraphs by blank lines.
- **Fences** (`split_fences`): a line of three or more backticks or tildes opens a fence, which
  the next line of at least as many of the same characters closes, or the text's end: found in
  one pass, so a text of 20,000 openers costs what its size costs.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

MAX_BRACKETS = 300  # '[' in the prose of one string (the real entries' most: 6)
MAX_NESTING = 16  # levels of lists and quotes on one line (the real entries' most: 2)
MAX_PARAGRAPH = 10_000  # characters of one paragraph (lines with no blank line between; the real most: 600)
MAX_BRACKET_DEPTH = 8  # brackets inside brackets, past which `inert` escapes a `[` (a link's text rarely needs 2)
INDENT_PER_LEVEL = 2  # columns of indentation that nest one level (CommonMark's `- ` offset)

# Characters no entry text may hold: C0 controls but tab and newline, DEL, C1 controls, the
# Unicode line separators, and every character that shows nothing in a review yet reaches the page,
# the JSON API and the lookup's index: the format characters (Unicode category Cf, as of Python
# 3.11's Unicode 14: bidirectional marks, embeddings, overrides and isolates, zero-width spaces and
# joiners, soft hyphen, byte order mark, invisible operators, interlinear annotations, tag characters
# that spell ASCII invisibly), the combining grapheme joiner, Khmer's inherent vowels, the Hangul
# fillers and the variation selectors (256 of them spell any byte invisibly, as tag characters spell
# ASCII): Unicode's Default_Ignorable_Code_Point, as assigned. Written as ranges: computing Cf from
# unicodedata at import costs a second.
INVISIBLE = (  # a regex character class's body; errorkb.core.logsafe strips the same from terminal text
    "\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f"
    "\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0d\ufeff\uffa0\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U00013438\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f\U000e0100-\U000e01ef"
)
# The text and emoji presentation selectors (U+FE0E, U+FE0F) are a reader's text only right after a symbol
# they present (the warning sign's U+26A0 U+FE0F): after ASCII, another selector or nothing, they show
# nothing. (One bit per symbol is all they could carry there.)
STRAY_PRESENTATION = "(?<![^\x00-\x7f\ufe00-\ufe0f])[\ufe0e\ufe0f]"
_UNPRINTABLE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029{INVISIBLE}]|{STRAY_PRESENTATION}")
_LINE_BREAKS = re.compile("[\t\n]")

FENCE_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
# A container at a line's start: a list marker (`-`, `*`, `+`, `1.`, `1)`) or a quote (`>`),
# each followed by a space, a tab or the line's end.
_CONTAINER = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)]|>)(?=[ \t]|$)")


# A line pymdownx.snippets reads as "put a file here" (`--8<-- "path"`, or the `--8<--` that opens or closes
# a block of paths), wherever it stands, code fences included: a site that enables the extension (the
# snippets use its section syntax) shows a file of the repository in the line's place, and the page no
# longer shows the code that ran. Escaped ones (`;--8<--`) too: one engine's escape is another's marker.
# The section markers (`# --8<-- [start:show]`) are comments, and never match.
_INCLUDE_LINE = re.compile(r"^[ \t]*;*-+8<-+(?:[ \t]+[\"']|[ \t]*$)", re.MULTILINE)


def include_line(text: str) -> int | None:
    """The number (from 1) of the first line of `text` that a Markdown extension reads as a file to
    put in its place; None when there is none."""
    found = _INCLUDE_LINE.search(text)
    return None if found is None else text.count("\n", 0, found.start()) + 1


def disarm_includes(text: str) -> str:
    """`text` with the `<` of each include line's marker written `\\u003c`, as `visible` writes a control:
    text no loader checked (a report's captured error, shown in a fence) shows the line, never obeys it."""
    return _INCLUDE_LINE.sub(lambda found: found.group().replace("<", "\\u003c", 1), text)


INCLUDE_ADVICE = ("a line Markdown's snippets extension reads as 'put this file here' (--8<--): a site that "
                  "enables it would show a file of the repository in its place; write it otherwise "
                  "(e.g. '-- 8< --')")


def unprintable(text: str, *, one_line: bool = False) -> str | None:
    """What is wrong with the first character `text` may not hold, worded for the author; None if none."""
    found = _UNPRINTABLE.search(text) or (_LINE_BREAKS.search(text) if one_line else None)
    if found is None:
        return None
    char = found.group()
    name = unicodedata.name(char, "")
    if char in "\t\n":
        kind = "a tab or line break, in text that must be one line"
    elif "SEPARATOR" in name or "DIRECTIONAL" in name or name.startswith(("LEFT-TO-RIGHT", "RIGHT-TO-LEFT")):
        kind = f"{name.lower()}, which reorders or breaks the text around it"
    elif unicodedata.category(char) != "Cc":
        kind = f"{name.lower() or 'a formatting character'}, which shows nothing to a reviewer"
    else:
        kind = "a control character"
    return f"U+{ord(char):04X} ({kind}) is not allowed; remove it"


# Letters of the Cyrillic and Greek scripts drawn like a Latin letter (Unicode's confusables of the Latin alphabet
# that its fonts draw alike), by the Latin letter each reads as. In a word of Latin letters one of them is a
# homoglyph: "lіst" (U+0456) reads as "list" to a reviewer, yet a reader's search, the lookup and a paste never
# match it, and two titles that differ by one read as one. A word of one script (Russian or Greek prose) is fine.
LOOKALIKES = {
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y", "\u0445": "x",
    "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u0501": "d", "\u051b": "q", "\u051d": "w", "\u04bb": "h",
    "\u04cf": "l", "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H",
    "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0406": "I", "\u0408": "J",
    "\u0405": "S", "\u051c": "W", "\u03bf": "o", "\u03bd": "v", "\u03f2": "c", "\u03f3": "j", "\u0391": "A",
    "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K", "\u039c": "M",
    "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
}
_LATIN = re.compile("[A-Za-z]")
_LOOKALIKE = re.compile(f"[{''.join(LOOKALIKES)}]")
_WORD = re.compile(r"[^\W\d_]+")


def lookalike(text: str) -> str | None:
    """What is wrong with the first word of `text` that mixes Latin letters with a look-alike of another script
    (`LOOKALIKES`), worded for the author; None if none. Linear: the words are found in one pass, and each is
    searched once (a pattern that grew a word around each look-alike rescanned long words, quadratic)."""
    if _LOOKALIKE.search(text) is None:
        return None
    for found in _WORD.finditer(text):
        word = found.group()
        if (char := _LOOKALIKE.search(word)) is not None and _LATIN.search(word):
            shown = word if len(word) <= 40 else word[:40] + "..."
            return (f"{shown!r} mixes Latin letters with U+{ord(char.group()):04X} "
                    f"({unicodedata.name(char.group()).lower()}), which looks like Latin {LOOKALIKES[char.group()]!r}: "
                    "a search, the lookup or a pasted error never matches the word; write the Latin letter")
    return None


def visible(text: str) -> str:
    """`text` with each character no entry may hold written as its `\\uXXXX` escape: text the
    loader never checked (a report's) shows such a character instead of obeying it."""
    return _UNPRINTABLE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


@dataclass(frozen=True)
class Block:
    """Lines of a text: prose, or a fence (its opening line, code lines, and whether it closed)."""

    lines: list[str]
    fence: bool = False
    closed: bool = False


def split_fences(text: str) -> list[Block]:
    """`text` as prose and fences, in order; every line is read once."""
    lines = text.split("\n")
    blocks: list[Block] = []
    prose: list[str] = []
    index = 0
    while index < len(lines):
        opening = FENCE_OPEN.match(lines[index])
        if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
            prose.append(lines[index])  # CommonMark: a backtick fence's info string holds no backtick
            index += 1
            continue
        if prose:
            blocks.append(Block(prose))
            prose = []
        char, length = opening["fence"][0], len(opening["fence"])
        end = index + 1
        while end < len(lines) and not _closes(lines[end], char, length):
            end += 1
        blocks.append(Block(lines[index:end], fence=True, closed=end < len(lines)))
        index = end + 1
    if prose:
        blocks.append(Block(prose))
    return blocks


def _closes(line: str, char: str, length: int) -> bool:
    stripped = line.strip(" \t")
    return len(stripped) >= length and stripped == char * len(stripped)


def nesting(line: str) -> int:
    """How many lists and quotes `line` is nested in: its container markers, plus its indentation."""
    indent = len(line) - len(line.lstrip(" \t"))
    columns = sum(4 if char == "\t" else 1 for char in line[:indent])
    depth, index = 0, 0
    while found := _CONTAINER.match(line, index):
        depth += 1
        index = found.end()
    return depth + columns // INDENT_PER_LEVEL


def excesses(text: str) -> list[str]:
    """Each structure of `text`'s prose that passes its limit, worded for the author."""
    brackets = deepest = longest = paragraph = 0
    for block in split_fences(text):
        if block.fence:
            paragraph = 0
            continue
        for line in block.lines:
            brackets += line.count("[")
            deepest = max(deepest, nesting(line))
            paragraph = paragraph + len(line) + 1 if line.strip() else 0
            longest = max(longest, paragraph)
    found = []
    if brackets > MAX_BRACKETS:
        found.append(f"{brackets:,} '[' (links, images, brackets); the limit is {MAX_BRACKETS:,} in one text: "
                     "write fewer links, or put code in a fence")
    if longest > MAX_PARAGRAPH:
        found.append(f"a paragraph of {longest:,} characters; the limit is {MAX_PARAGRAPH:,}: split it with "
                     "blank lines")
    if deepest > MAX_NESTING:
        found.append(f"lists or quotes nested {deepest:,} levels deep; the limit is {MAX_NESTING}: "
                     "flatten the list, or put indented code in a fence")
    return found
