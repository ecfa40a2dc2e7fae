"""Reading a paste: what a terminal printed, made comparable with the entries' wordings.

Stages, each one pass over the text (the `Meter` counts what they read; tests hold the count
to a linear bound, and the page's JavaScript counts the same way):

1. `keep_tail`: a paste longer than `CAP` characters keeps its last `CAP` (where the error is),
   from the first line that starts inside them.
2. `normalize`: BOMs go; no-break spaces become spaces; a JSON string that holds a traceback (a log record's
   `exc_info`) is read as the text it encodes (`ESCAPED_TRACEBACK`); invisible marks go (`INVISIBLE`: a
   zero-width space, a right-to-left mark); the HTML entities a traceback's characters are escaped as are read once
   (`HTML_ENTITY`: `&lt;module&gt;`, `&#39;`); typographic quotes (‘’ “”) become
   ASCII ones (in wordings too); `\\r\\n`, `\\r`, U+2028 and U+2029 become `\\n`; ANSI escape
   sequences go; a Markdown quote's `> ` goes from a run of quoted lines (`QUOTED`); a unified
   diff's hunk becomes the text it leaves (`DIFF_HUNK`: added and context lines unmarked, removed
   ones gone); spaces and tabs at a line's end go; a doctest's expected output goes from its report
   (`DOCTEST_EXPECTED`: what the example should have printed is not what it did); the lines of each process
   a launcher interleaved are put together (`PROCESS`: `[rank1]: `, a worker's tag); `PREFIX` is
   removed from the start of every line (a launcher's `[rank0]: `,
   pytest's `E   `, a log's timestamp, `tool-name | `, stacked; which lines carried a log record's prefix is
   kept: `logged_lines`); an exception group's margin (`| `)
   and separators go (`GROUP_MARGIN`); a Markdown link a notebook drew
   (`[~/x.py:480](https://...)`) becomes its text (`LINK`); rich's traceback box is opened
   (its title becomes Python's marker, its folded frame lines are joined, its edges go); a frame
   line a terminal or a web form broke at a fixed width is joined again; Python's hint
   `. Did you mean: 'x'?` goes from the end of a line; blanks at a line's end go again (what a
   link's text or the hint leaves: no normalised line ends in one); ASCII whitespace is stripped
   at both ends.
3. `candidates`: every line shaped `[indent]Name: message` is an exception line, and so is an
   exception class's name inside a line after the text a tool put before it (`... failed:
   AttributeError: message`); the last `CHAIN` of them are candidates, the last first (in a
   chain, the last exception surfaced).
   Each gives its one-line message and, when lines follow before a blank line, a traceback
   marker or the next exception line, the multi-line message too. Then the whole text, as a
   bare message. Candidates end at the next exception line: together they hold each line at
   most twice.
4. `frames`: every traceback frame (file, line, function, and the source line printed under
   it; loguru's `> File ...` too), with where it stands, so that the frames of one exception's traceback
   can be told from another's in a chain (`traceback_of`, or `frames_after` for a log that writes the
   error before where it was raised); `arrows`: the failing lines IPython marks (`---> 10  code`).
5. `stated_releases`: the releases of the library the paste names (`<library>==4.41.2`, the issue
   template's "`<library>` version: 4.41.2", pip's `Successfully installed <library>-4.41.2`); never
   a folder's name (`/home/u/<library>-4.30.0/src/...`, a virtual environment's), nor one a line (or the
   line after it) says works or fixed it.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import pairwise
from typing import NamedTuple

from errorkb.core.message import Meter
from errorkb.lookup import _rules as rules

_ANSI = rules.compiled(rules.ANSI)
_INVISIBLE = rules.compiled(rules.INVISIBLE)
_HTML_ENTITY = rules.compiled(rules.HTML_ENTITY)
_ESCAPED_TRACEBACK = rules.compiled(rules.ESCAPED_TRACEBACK)
_REPR_TRACEBACK = rules.compiled(rules.REPR_TRACEBACK)
_LINE_RECORD = rules.compiled(rules.LINE_RECORD)
_JSON_ESCAPE = rules.compiled(rules.JSON_ESCAPE)
_RICH_TOP = rules.compiled(rules.RICH_TOP)
_RICH_BOTTOM = rules.compiled(rules.RICH_BOTTOM)
_RICH_FOLD = rules.compiled(rules.RICH_FOLD)
_RICH_WRAP = rules.compiled(rules.RICH_WRAP)
_RICH_EDGE = rules.compiled(rules.RICH_EDGE)
_FRAME_WRAP = rules.compiled(rules.FRAME_WRAP)
_FRAME_NAME_WRAP = rules.compiled(rules.FRAME_NAME_WRAP)
_FRAME_CUT_BLANK = rules.compiled(rules.FRAME_CUT_BLANK)
_EXCEPTION_WRAP_END = rules.compiled(rules.EXCEPTION_WRAP_END)
_CUT_BLANK_END = rules.compiled(rules.CUT_BLANK_END)
_PADDED_END = rules.compiled(rules.PADDED_END)
_PREFIX = rules.compiled(rules.PREFIX)
_LOG_RECORD = rules.compiled(rules.LOG_RECORD)
_LISTED_LEAD = rules.compiled(rules.LISTED_LEAD)
_PRINTED_NAME = rules.compiled(rules.PRINTED_NAME)
_PROCESS = rules.compiled(rules.PROCESS)
_TAG_CHARACTER = rules.compiled(rules.TAG_CHARACTER)
_GROUP_MARGIN = rules.compiled(rules.GROUP_MARGIN)
_LINK = rules.compiled(rules.LINK)
_QUOTED = rules.compiled(rules.QUOTED)
_QUOTE_MARK = rules.compiled(rules.QUOTE_MARK)
_DIFF_HUNK = rules.compiled(rules.DIFF_HUNK)
_DIFF_CHANGE = rules.compiled(rules.DIFF_CHANGE)
_DOCTEST_EXPECTED = rules.compiled(rules.DOCTEST_EXPECTED)
_LINE_END = rules.compiled(rules.LINE_END)
_SUFFIX = rules.compiled(rules.SUFFIX)
_EXCEPTION_LINE = rules.compiled(rules.EXCEPTION_LINE)
_INLINE_EXCEPTION = rules.compiled(rules.INLINE_EXCEPTION)
_STOP_LINE = rules.compiled(rules.STOP_LINE)
_TRACEBACK = rules.compiled(rules.TRACEBACK)
_TRACEBACK_END = rules.compiled(rules.TRACEBACK_END)
_FRAME_LINE = rules.compiled(rules.FRAME_LINE)
_CODE_LINE = rules.compiled(rules.CODE_LINE)
_STACK_LINE = rules.compiled(rules.STACK_LINE)
_MARKERS = rules.compiled(rules.MARKERS)
_ARROW_LINE = rules.compiled(rules.ARROW_LINE)
_PYTEST_DEF = rules.compiled(rules.PYTEST_DEF)
_PYTEST_FAILING = rules.compiled(rules.PYTEST_FAILING)
_FATAL_NAME = rules.compiled(rules.FATAL_NAME)
_INSTALL_ROOT = rules.compiled(rules.INSTALL_ROOT)
_OWN_FILE = rules.compiled(rules.OWN_FILE)
_RELEASE_NUMBER = rules.compiled(rules.RELEASE_NUMBER)
_BESIDE_NUMBER = rules.compiled(rules.BESIDE_NUMBER)
_CHAINED = rules.compiled(rules.CHAINED)
_RERAISE = rules.compiled(rules.RERAISE)
_TOLD_WORKING = rules.compiled(rules.TOLD_WORKING)
_TOLD_NOT = rules.compiled(rules.TOLD_NOT)
_SENTENCE_END = rules.compiled(rules.SENTENCE_END)
_TOLD_NEXT = rules.compiled(rules.TOLD_NEXT)
_TOLD_OTHER_BEFORE = rules.compiled(rules.TOLD_OTHER_BEFORE)
_TOLD_OTHER_AFTER = rules.compiled(rules.TOLD_OTHER_AFTER)
_PROMPT_OPEN = rules.compiled(rules.PROMPT_OPEN)
_PROMPT_CLOSE = rules.compiled(rules.PROMPT_CLOSE)
_COMMENT = rules.compiled(rules.COMMENT)
_LIST_ITEM = rules.compiled(rules.LIST_ITEM)
_NOT_FOUND_HEADER = rules.compiled(rules.NOT_FOUND_HEADER)
_REPLACED = rules.compiled(rules.REPLACED)


class Candidate(NamedTuple):  # a tuple: a long paste makes thousands, each made at C speed
    message: str
    exception: str | None  # the name written before the message, if any
    chain: int = rules.CHAIN  # the exception line's place from the end of the paste (0: the last)
    at: int = -1  # where its exception line starts in the normalised text (-1: the whole text)


class Frame(NamedTuple):
    path: str  # as printed, with forward slashes, at most MAX_PATH characters
    line: int
    function: str  # as printed: the code object's name ("" when the paste does not say)
    code: str  # the source line printed under it, stripped ("" when none)
    at: int  # where the frame line starts in the normalised text


def strip(text: str) -> str:
    return text.strip(rules.WHITESPACE)


def keep_tail(text: str, cap: int = rules.CAP) -> str:
    """The paste's last `cap` characters, from the first line that starts inside them; when that
    leaves nothing but blanks (one long last line, then a line break), the characters themselves:
    a paste is cut, never dropped. The page's paste box cuts with the same rule (lookup.js)."""
    if len(text) <= cap:
        return text
    tail = text[len(text) - cap:]
    newline = tail.find("\n")
    from_line = tail[newline + 1:] if newline >= 0 else ""
    return from_line if from_line.strip(" \t\r\n") else tail


def plain_quotes(text: str) -> str:
    """Typographic quotes (a word processor, a forum, a translated title) as Python prints them."""
    return text.replace("\u2018", "'").replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')


def normalize(text: str, meter: Meter | None = None, logged: set[int] | None = None) -> str:
    """Stage 2: what terminals and tools add, taken away. `logged`, when given, receives the numbers (from 0) of the
    normalised text's lines that carried a log record's prefix (`logged_lines`)."""
    meter = meter or Meter()
    meter.work += (35 + rules.FRAME_WRAPS) * len(text)  # the passes below each read the text once
    text = text.replace("\ufeff", "").replace("\u00a0", " ")
    meter.work += len(text)
    if '\\n"' in text:  # a record that holds one line ends it so: Docker's log of plain output
        meter.work += len(text)
        text = _LINE_RECORD.sub(_line_record, text)
    for _ in range(rules.JSON_DEPTH):  # one layer of a record inside a record's string a pass, until none is left
        meter.work += len(text)
        if rules.TRACEBACK_TEXT + "\\" not in text:  # an escaped traceback's marker: a backslash follows it
            break
        meter.work += 2 * len(text)
        decoded = _REPR_TRACEBACK.sub(_json_string, _ESCAPED_TRACEBACK.sub(_json_string, text))
        if decoded == text:
            break
        text = decoded
    text = _INVISIBLE.sub("", text)
    text = _HTML_ENTITY.sub(lambda entity: rules.HTML_ENTITIES[entity.group(0)], text)
    text = plain_quotes(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n")
    text = _ANSI.sub("", text)
    text = _QUOTED.sub(lambda run: _QUOTE_MARK.sub("", run.group(0)), text)
    text = _DIFF_HUNK.sub(_hunk_text, text)
    text = _DIFF_CHANGE.sub(_change_text, text)
    cut_blank = _cut_blank_ends(text)  # before LINE_END takes the blanks
    text = _LINE_END.sub("", text)
    text = _DOCTEST_EXPECTED.sub(lambda report: report.group(1) + "\n" + report.group(2), text)
    text = by_process(text)
    records, count = (logged_lines(text), text.count("\n")) if logged is not None else ([], 0)
    text = _PREFIX.sub("", text)
    text = _GROUP_MARGIN.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _RICH_TOP.sub(rules.TRACEBACK_TEXT, text)
    text = _rich_message(text)
    text = _RICH_BOTTOM.sub("", text)
    text = _RICH_FOLD.sub("", text)
    text = _RICH_WRAP.sub(" ", text)
    text = _RICH_EDGE.sub("", text)
    width = _wrap_width(text)
    for _ in range(rules.FRAME_WRAPS):  # a path broken twice is joined in two passes
        text, joined = _FRAME_WRAP.subn(_frame_joined, text)
        if not joined:
            break
    if width:
        text = _exception_unwrapped(text, width, cut_blank)
    text = _FRAME_NAME_WRAP.sub(r"\1\2\3", text)
    text = _SUFFIX.sub("", text)
    text = _LINE_END.sub("", text)  # again: a link's text or the hint's removal may leave blanks at a line's end
    if logged is not None:
        logged.update(_renumbered(records, count, text))
    return strip(text)


def _frame_joined(cut: re.Match[str]) -> str:
    """A frame line `rules.FRAME_WRAP` found cut, joined: its blank back where Python prints one
    (`rules.FRAME_CUT_BLANK`)."""
    return cut.group(1) + " " if _FRAME_CUT_BLANK.search(cut.group(1)) else cut.group(1)


def _wrap_width(text: str) -> int:
    """The width a terminal cut the frame lines at (`rules.EXCEPTION_WRAP_END`): the longest line the first pass of
    `rules.FRAME_WRAP` or `rules.FRAME_NAME_WRAP` joins (a cut after a blank counts it: `rules.FRAME_CUT_BLANK`), when
    no line from the first of them on is longer; else 0."""
    cuts = [(cut.start(), len(cut.group(1)) + (cut.group(0) == cut.group(1) + "\n"
                                               and _FRAME_CUT_BLANK.search(cut.group(1)) is not None))
            for cut in _FRAME_WRAP.finditer(text)]
    cuts += [(cut.start(), len(cut.group(1)) + len(cut.group(2))) for cut in _FRAME_NAME_WRAP.finditer(text)]
    if not cuts:
        return 0
    width = max(length for _, length in cuts)
    first = min(start for start, _ in cuts)
    return width if all(len(line) <= width for line in text[first:].split("\n")) else 0


def _cut_blank_ends(text: str) -> dict[str, str]:
    """The text of each line that ends with exactly one blank, a cut the terminal made right after it
    (`rules.CUT_BLANK_END`), and that blank: none when the paste pads its lines (`rules.PADDED_END`), and none whose
    text also stands as a whole line without it or with another blank."""
    if _PADDED_END.search(text):
        return {}
    noted: dict[str, str] = {}
    for line in _CUT_BLANK_END.finditer(text):
        blank = line.group(0)[-1]
        noted[line.group(1)] = blank if noted.get(line.group(1), blank) == blank else ""
    for bare in text.split("\n") if noted else ():
        noted.pop(bare, None)
    return {line: blank for line, blank in noted.items() if blank}


def _exception_unwrapped(text: str, width: int, cut_blank: dict[str, str] | None = None) -> str:
    """An exception line (`rules.TRACEBACK_END`) of exactly `width` characters joined with the lines it goes on at,
    nothing between, while each part is `width` long and the next line is no line of its own
    (`rules.EXCEPTION_WRAP_END`). A part one shorter whose blank `LINE_END` took (`cut_blank`) is `width` long: the
    join puts that blank back."""
    cut_blank = cut_blank or {}
    lines = text.split("\n")
    out: list[str] = []

    def filled(part: str) -> bool:
        return len(part) == width or (len(part) == width - 1 and part in cut_blank)

    at = 0
    while at < len(lines):
        part = lines[at]
        parts = [part]
        if filled(part) and _TRACEBACK_END.match(part):
            while filled(part) and at + 1 < len(lines) and not _EXCEPTION_WRAP_END.match(lines[at + 1]):
                at += 1
                parts.append((cut_blank[part] if len(part) < width else "") + lines[at])
                part = lines[at]
        out.append("".join(parts))
        at += 1
    return "\n".join(out)


def _json_string(string: re.Match[str]) -> str:
    """A JSON string or a Python repr that holds a traceback (`rules.ESCAPED_TRACEBACK`, `rules.REPR_TRACEBACK`: a log
    record's `exc_info`) as the text it encodes, on lines of its own (the record's other fields stay on the lines
    around it)."""
    return string.group(1) + "\n" + _JSON_ESCAPE.sub(_unescaped, string.group(2)) + "\n"


def _line_record(record: re.Match[str]) -> str:
    """A record that holds one line a program printed (`rules.LINE_RECORD`: Docker's json-file log) as that line."""
    return record.group(1) + _JSON_ESCAPE.sub(_unescaped, record.group(2))


def _unescaped(escape: re.Match[str]) -> str:
    """One escape as its character (`rules.JSON_ESCAPES`; `\\xhh`, `\\uhhhh`, `\\Uhhhhhhhh` but a surrogate's half
    or past the last code point), any other as written."""
    code = escape.group(1) or escape.group(2) or escape.group(3)
    if code is not None:
        value = int(code, 16)
        return escape.group(0) if 0xD800 <= value <= 0xDFFF or value > 0x10FFFF else chr(value)
    return rules.JSON_ESCAPES.get(escape.group(4), escape.group(0))


def logged_lines(text: str) -> list[int]:
    """The numbers (from 0) of the lines that start with a log record's prefix (`rules.LOG_RECORD`), read before
    `PREFIX` takes it away: a record the program logged and went on from (round sixteen)."""
    numbers: list[int] = []
    line = done = 0
    for record in _LOG_RECORD.finditer(text):
        line += text.count("\n", done, record.start())
        done = record.start()
        numbers.append(line)
    return numbers


def _renumbered(records: list[int], count: int, text: str) -> list[int]:
    """`records` (line numbers when the text had `count` line breaks) as numbers of the lines of `strip(text)`. Where
    a later pass joined lines (rich's box, a frame line broken at a terminal's width), the paste has a traceback and
    is no list of errors: every line reads as logged then, and none is listed."""
    lead = text[:len(text) - len(text.lstrip(rules.WHITESPACE))].count("\n")
    if text.count("\n") != count:
        return list(range(count + 1))
    return [number - lead for number in records if number >= lead]


def by_process(text: str) -> str:
    """The lines of each process together (`rules.PROCESS`: its marker at a line's start; a tag learned from the paste,
    `learned_tags`, taken away; the unmarked lines are one more), the processes in the order their last lines come: a
    launcher interleaves its processes' lines, and a frame one printed is no frame of another's error. A paste of one
    process (or none marked) is left as it is, but for a learned tag."""
    lines = text.split("\n")
    tags = learned_tags(lines)
    keys, kept = [], []
    for line in lines:
        marker = _PROCESS.match(line)
        tag = "" if marker is not None else next((one for one in tags if line.startswith(one)), "")
        keys.append(marker.group(0) if marker is not None else tag)
        kept.append(line[len(tag):])
    if len(set(keys)) < 2:
        return "\n".join(kept) if tags else text
    last = {key: index for index, key in enumerate(keys)}
    groups: dict[str, list[str]] = {}
    for key, line in zip(keys, kept, strict=True):
        groups.setdefault(key, []).append(line)
    return "\n".join(line for key in sorted(groups, key=last.__getitem__) for line in groups[key])


def learned_tags(lines: list[str]) -> list[str]:
    """The tags no rule knows that the paste's lines carry (`rules.TAG_CHARACTER`, `TAG_MAX`, `TAGS_MAX`): the text
    before Python's traceback marker on its line, when a later line starts with it too (pdsh's `worker-1: `, a
    launcher's `[Rank 0] `), longest first. One pass for the markers, one over the lines after each tag's line."""
    found: dict[str, int] = {}  # each tag, and the line it was read on
    for number, line in enumerate(lines):
        at = line.find(rules.TRACEBACK_TEXT)
        if at <= 0:
            continue
        tag = line[:at]
        if len(tag) > rules.TAG_MAX or tag in found or not _TAG_CHARACTER.search(tag) or \
                _PROCESS.match(tag) is not None:
            continue
        known = _PREFIX.match(tag)
        if known is not None and known.end() == len(tag):
            continue
        found[tag] = number
        if len(found) >= rules.TAGS_MAX:
            break
    return sorted((tag for tag, number in found.items() if any(line.startswith(tag) for line in lines[number + 1:])),
                  key=lambda tag: (-len(tag), tag))


def _change_text(change: re.Match[str]) -> str:
    """A change pasted without its hunk's header (see rules.DIFF_CHANGE) as the text it leaves: its added lines
    without their mark; a run of removed lines with none added after it is no change, and stays."""
    lines = change.group(0).split("\n")
    if not lines[-1].startswith("+"):
        return change.group(0)
    return "\n".join(line[1:] for line in lines if line[0] in rules.DIFF_KEPT)


def _hunk_text(hunk: re.Match[str]) -> str:
    """A unified diff's hunk as the text it leaves (see rules.DIFF_HUNK): its header, then its added and context
    lines without their mark; its removed lines are no longer said."""
    header, *lines = hunk.group(0).split("\n")
    return "\n".join([header, *(line[1:] for line in lines if line[0] in rules.DIFF_KEPT)])


def _rich_message(text: str) -> str:
    """The exception's text rich printed below each box, unwrapped: a line whose next line's first word
    would not have fitted on it within the box's width was wrapped there (see rules.RICH_TOP)."""
    out: list[str] = []
    done = 0
    for bottom in _RICH_BOTTOM.finditer(text):
        if bottom.start() < done:  # inside the text joined after the box before
            continue
        width = len(strip(bottom.group(0)))
        start = bottom.end() + 1
        if start >= len(text):
            break
        end = text.find("\n\n", start)
        end = len(text) if end < 0 else end
        lines = text[start:end].split("\n")
        out += [text[done:start], lines[0]]
        for last, line in pairwise(lines):  # each printed line and the one after it
            word = line.split(" ", 1)[0]
            if not word or len(last.rstrip(" \t")) + 1 + len(word) <= width:
                out.append("\n")  # it would have fitted: the message's own line break
            elif not last.endswith((" ", "\t")):  # wrapped: the space rich broke at, kept at the end or taken
                out.append(" ")
            out.append(line)
        done = end
    return "".join(out) + text[done:] if out else text


def candidates(text: str, meter: Meter | None = None) -> list[Candidate]:
    """Stage 3: messages a normalised paste may hold, most likely first. A message is read without the blanks
    around it, leading as trailing: `raise RuntimeError(f'  {error}')` prints the words it relays whole, not
    inside a longer message (round thirty-four: leading blanks took a retelling's path, trailing ones did not)."""
    meter = meter or Meter()
    meter.work += 2 * len(text)  # the two scans: exception lines, exception names inside lines
    lines = exception_lines(text, meter)[-rules.CHAIN:]
    found: list[Candidate] = []
    for chain, (at, name, first, _end) in enumerate(reversed(lines)):
        found.append(Candidate(strip(first), name, chain, at))
        after = lines[len(lines) - chain][0] - 1 if chain else len(text)
        more = message_lines(text, at, after, meter)
        if more:
            found.append(Candidate(strip(first + "\n" + more), name, chain, at))
    found.append(Candidate(text, None))
    return found


def exception_lines(text: str, meter: Meter | None = None) -> list[tuple[int, str, str, int]]:
    """(where it starts, exception name, message's first line, where that line ends) of every
    exception line, in order: a line that starts with one, and a name inside a line (after the
    text a tool put before it) that is not such a line's own name; never a line the message of an
    earlier one goes on over (`message_lines`: PyYAML's mark quoting `    a: !foo x`)."""
    meter = meter or Meter()
    whole, names = [], set()
    for line in _EXCEPTION_LINE.finditer(text):
        whole.append((line.start(), line.group(1), line.group(2), line.end()))
        names.add(line.start(1))
    inside = [(one.start(), one.group(1), one.group(2), one.end()) for one in _INLINE_EXCEPTION.finditer(text)
              if one.start() not in names and strip(one.group(2))]
    found = sorted(whole + inside) if inside else whole
    kept: list[tuple[int, str, str, int]] = []
    covered, line_end = -1, -1  # where the last kept message's lines end; where its first line ends
    for one in found:
        if line_end < one[0] < covered:
            continue
        if one[0] > line_end:  # a line of its own: its message's lines (a name inside that line shares them)
            line_end = _line_end(text, one[0])
            covered = line_end + 1 + len(message_lines(text, one[0], meter=meter))
        kept.append(one)
    return kept


def message_lines(text: str, at: int, end: int | None = None, meter: Meter | None = None) -> str:
    """The lines a message goes on over after its exception line (the line holding `at`), up to `end`: every line
    before a blank one, a traceback's or a chain's marker, or a line no deeper than the exception line's that reads
    as an exception (`name: text`, or a tool's text then `SomeError: text`). A deeper line is the message's even when
    it reads as `name: text` (PyYAML's marks quote the document). The one rule of where a message ends: the lookup's
    candidates and exception lines, and `errorkb new`'s drafted message (`author/paste.read_paste`)."""
    meter = meter or Meter()
    end = len(text) if end is None else end
    begin = text.rfind("\n", 0, at) + 1
    depth = _indent(text, begin)
    start = _line_end(text, at) + 1
    kept = start
    while 0 < start < end:
        stop = _line_end(text, start)
        line = text[start:min(stop, end)]
        meter.work += len(line) + 1
        if _STOP_LINE.match(line) or _starts_record(line, depth):
            break
        kept, start = min(stop, end), stop + 1
    return text[_line_end(text, at) + 1:kept] if kept > _line_end(text, at) + 1 else ""


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _indent(text: str, begin: int) -> int:
    at = begin
    while at < len(text) and text[at] in " \t":
        at += 1
    return at - begin


def _starts_record(line: str, depth: int) -> bool:
    """A line no deeper than the exception line's that starts another record: a traceback's or a chain's marker, or
    an exception line."""
    lead = _indent(line, 0)
    if lead > depth:
        return False
    return bool(_STOP_LINE.match(line[lead:]) or _EXCEPTION_LINE.match(line) or _INLINE_EXCEPTION.search(line))


def frames(text: str, meter: Meter | None = None) -> list[Frame]:
    """Stage 4: every frame of the paste, outermost first, with its failing line: the line under it
    (Python, pytest's short entries), the arrow in its block (a notebook's `---> 480`, which also
    gives IPython 7 the line number), or, in pytest's long entries, whose location line follows the
    source, the `>` line and the `def` of the source above it (where such a frame starts)."""
    meter = meter or Meter()
    meter.work += 3 * len(text)  # the frame scan, each frame's next line, each frame's block: each read once
    found = []
    lines = list(_FRAME_LINE.finditer(text))
    for index, match in enumerate(lines):
        after = lines[index + 1].start() if index + 1 < len(lines) else len(text)
        before = lines[index - 1].end() if index else 0
        indent = len(match.group(0)) - len(match.group(0).lstrip(" \t"))
        at, code = match.start(), ""
        if match.group(1) is not None:  # Python
            path, number, function = match.group(1), match.group(2), match.group(5)
            code = _code_line(text, match.end() + 1, indent)
        elif match.group(3) is not None or match.group(6) is not None or match.group(11) is not None:
            # IPython 8, IPython 7, rich: the failing line is the arrow in the frame's block
            arrow = _ARROW_LINE.search(text[match.end() + 1:after]) if match.end() < after else None
            code = strip(arrow.group(2)) if arrow else ""
            if match.group(11) is not None:
                path, number, function = match.group(11), match.group(12), match.group(13)
            elif match.group(3) is not None:
                path, number, function = match.group(3), match.group(4), match.group(5)
            else:
                path, function = match.group(6), match.group(7)
                number = arrow.group(1) if arrow and arrow.group(1) else "0"
        elif match.group(10) is not None:  # pytest, a short entry
            path, number, function = match.group(8), match.group(9), match.group(10)
            code = _code_line(text, match.end() + 1, indent)
        else:  # pytest, a long entry: the source above
            path, number, at = match.group(8), match.group(9), before
            block = text[before:match.start()]
            named = _PYTEST_DEF.search(block)
            function = named.group(1) if named else ""
            marked = [found.group(1) for found in _PYTEST_FAILING.finditer(block)]
            code = strip(marked[-1]) if marked else ""
        function = strip(function or "").split("(", 1)[0]  # IPython prints the arguments: `in f(a, b)`
        found.append(Frame(path[:rules.MAX_PATH].replace("\\", "/"), int(number[:9]), function, code, at))
    return found


def _code_line(text: str, start: int, indent: int) -> str:
    """The line after a frame line when it is the frame's code: indented (Python prints it under the
    frame line, deeper), or, where a log's prefix took the indentation off every line (the frame line's
    too), any line that is not a frame, an exception, a marker or a blank line."""
    if start >= len(text):
        return ""
    end = text.find("\n", start)
    line = text[start:end if end >= 0 else len(text)]
    if _MARKERS.match(line) or strip(line).startswith("File "):
        return ""
    code = _CODE_LINE.match(line)
    if code:
        return strip(code.group(1))
    if indent or _EXCEPTION_LINE.match(line) or _STOP_LINE.match(line) or _FRAME_LINE.match(line):
        return ""
    return strip(line)


def arrows(text: str, meter: Meter | None = None) -> list[Frame]:
    """The failing lines IPython marks with an arrow (`---> 10  code`), as frames that show only
    their code: a paste in that form shows what failed without a `File "..."` line."""
    meter = meter or Meter()
    meter.work += len(text)
    return [Frame("", 0, "", strip(found.group(2)), found.start()) for found in _ARROW_LINE.finditer(text)]


def markers(text: str, meter: Meter | None = None) -> list[int]:
    """Where each `Traceback (most recent call last):` line starts."""
    meter = meter or Meter()
    meter.work += len(text)
    return [found.start() for found in _TRACEBACK.finditer(text)]


def ends(text: str, meter: Meter | None = None) -> list[tuple[int, str]]:
    """Where each exception line that ends a traceback (`rules.TRACEBACK_END`) ends, with what it says."""
    meter = meter or Meter()
    meter.work += len(text)
    return [(found.end(), strip(found.group(0))) for found in _TRACEBACK_END.finditer(text)]


def said_at(text: str, at: int) -> str:
    """The exception an exception line (or a name inside a line) states from `at`: the rest of its line."""
    end = text.find("\n", at)
    return strip(text[at:end if end >= 0 else len(text)])


def traceback_start(starts: list[int], ended: list[tuple[int, str]], at: int, said: str) -> int:
    """Where the traceback of the exception stated at `at` (`said`) starts: after the last marker before it
    (`starts`, in order), or after the last exception line before it that ended another traceback (`ended`,
    in order), whichever is later (-1: neither). A line that says the same exception again (pytest's
    summary line, a log's `str(e)`) ends nothing: it restates the error whose traceback is above it."""
    index = bisect_left(starts, at)
    start = starts[index - 1] if index else -1
    index = bisect_left(ended, (at,))
    while index > 0 and ended[index - 1][0] > start:
        index -= 1
        if ended[index][1] != said:
            return ended[index][0]
    return start


def chained(text: str, meter: Meter | None = None) -> list[int]:
    """Where each chain sentence (`During handling of the above exception`, `The above exception was the
    direct cause`) starts."""
    meter = meter or Meter()
    meter.work += len(text)
    return [found.start() for found in _CHAINED.finditer(text)]


def line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def final_lines(text: str, options: list[Candidate], ended: list[tuple[int, str]],
                links: list[int], starts: list[int] | None = None, framed: bool = True,
                logged: frozenset[int] = frozenset()) -> frozenset[int] | None:
    """Where the lines start that state the error the paste ended with (None: no exception line names one).
    That error is the last exception line whose name reads as an exception's (`rules.FATAL_NAME`: a log's
    `INFO:` after it or a warning at shutdown is none), or a later traceback's bare exception line (`bare_end`:
    `AssertionError`, printed without a message); an earlier line that says it again is the same error
    (pytest's summary line restates the `E` line, cut with `...` at the terminal's width); and an exception a
    chain sentence (`links`) ties to one of these, back along the chain: the nearest traceback-ending line
    (`ended`) before it, when a chain sentence stands between them that ties them (`ties`). An exception named
    inside one of these lines (a wrapper's `failed: AttributeError: ...`) is part of it. A paste that shows no
    traceback (`framed` False: no marker, no frame) and ends with exception lines one directly under the other is a
    list of errors the user met (`listed`): it ended with each of them, unless a line carried a log record's prefix
    (`logged`, line numbers): a record logged is a handled error, said before."""
    lines = sorted({one.at for one in options if one.at >= 0 and one.exception is not None
                    and _FATAL_NAME.search(one.exception)})
    bare = bare_end(text, lines[-1] if lines else -1, ended, starts or [])
    if not lines and bare < 0:
        return None
    heads = [bare]
    if bare < 0:
        said = said_at(text, lines[-1])
        cut = said[:-3] if said.endswith("...") else None
        heads = [line_start(text, at) for at in (lines[-1], *(
            at for at in lines[:-1] if said_at(text, at) == said or (cut and said_at(text, at).startswith(cut))))]
        if not framed:
            heads += listed(text, lines, logged)
    final: set[int] = set()
    for start in heads:
        while start not in final:
            final.add(start)
            index = bisect_left(ended, (start,))  # the traceback-ending lines before this line
            if not index:
                break
            before = ended[index - 1][0]
            link = bisect_left(links, before)
            if link >= len(links) or links[link] >= start or not ties(text, links[link], start, before):
                break
            start = line_start(text, before - 1)
    return frozenset(final)


def listed(text: str, lines: list[int], logged: frozenset[int] = frozenset()) -> list[int]:
    """Where the lines start of the exception lines (`lines`, in order) listed directly above the last one, each on
    the line just before the next (corpus h558: three import errors after an upgrade). A line between (a log's
    `INFO:`, a blank line) ends the list: what stands above it was said before. So does a line that carried a log
    record's prefix (`logged`, line numbers; round sixteen), and a list whose last line carried one is none. And
    so does a line that is no exception line Python or a test runner printed (`rules.LISTED_LEAD`,
    `rules.PRINTED_NAME`: a name in prose, a print's `Error: ...`; round seventeen)."""
    found: list[int] = []
    start = line_start(text, lines[-1]) if lines else 0
    number = text.count("\n", 0, start)
    if number in logged:
        return found
    for at in reversed(lines[:-1]):
        if line_start(text, at) == start:  # a name inside the same line (a wrapper's `failed: ValueError: ...`)
            continue
        if not start or line_start(text, at) != line_start(text, start - 1) or number - 1 in logged \
                or not _LISTED_LEAD.match(text[line_start(text, at):at]) or _PRINTED_NAME.match(text[at:start]):
            break
        start, number = line_start(text, at), number - 1
        found.append(start)
    return found


def bare_end(text: str, last: int, ended: list[tuple[int, str]], starts: list[int]) -> int:
    """Where the line starts of a bare exception line (a name that reads as an exception's, no message: Python's
    `AssertionError`, `KeyboardInterrupt`) that ends a traceback after the last exception line with a message
    (`last`, -1: none): a traceback marker stands between them (-1: none does). A bare name in prose after the
    error, with no marker before it, ends nothing."""
    for end, said in reversed(ended):
        start = line_start(text, end - 1)
        if start <= last:
            return -1
        if ":" in said or not _FATAL_NAME.search(said):
            continue
        marker = bisect_left(starts, last + 1)
        return start if marker < len(starts) and starts[marker] < start else -1
    return -1


def ties(text: str, link: int, start: int, before: int) -> bool:
    """Whether the chain sentence at `link` ties the exception line that starts at `start` to the one that ends at
    `before` (see rules.HANDLING_TEXT): always for a direct cause; for "During handling", only when the handler
    raised it (its failing line is a `raise`) or its message restates the earlier one's."""
    if not text.startswith(rules.HANDLING_TEXT, link):
        return True
    if _RERAISE.match(_failing_line(text, link, start)):
        return True
    earlier = said_at(text, line_start(text, before - 1)).split(": ", 1)
    return len(earlier) == 2 and bool(strip(earlier[1])) and strip(earlier[1]) in said_at(text, start)


def _failing_line(text: str, stop: int, start: int) -> str:
    """The last line before the line that starts at `start`, back to `stop`, that is no blank or Python 3.11's position
    markers: the failing line of the traceback that ends there ("" when none)."""
    end = start - 1
    while end > stop:
        begin = max(text.rfind("\n", stop, end) + 1, stop)
        if not _MARKERS.match(text[begin:end]):
            return text[begin:end]
        end = begin - 1
    return ""


def traceback_of(found: list[Frame], start: int, at: int) -> list[Frame]:
    """The frames of the traceback that ends at the exception line starting at `at` (all the
    paste's frames for a bare message, `at` = -1): those from its start (`traceback_start`) to it.
    An exception line after another traceback's, with no frames of its own, shows none: the frames
    above belong to the error that ended there."""
    if at < 0:
        return found
    return [frame for frame in found if start <= frame.at < at]


def frames_after(found: list[Frame], text: str, at: int, starts: list[int],
                 ended: list[tuple[int, str]]) -> list[Frame]:
    """The frames of an exception line that states the error before where it was raised (a log's `ValueError:
    ...` then `  File "x.py", line 3, in f`, corpus h299), when it shows none before it (`traceback_of`): those from
    the line after it, its first frame, to the next traceback marker (`starts`, in order) or the paste's end. Frames
    followed there by an exception line that ends a traceback (`ended`, in order) and says another error are, in
    Python's order, that line's: none are this one's."""
    end = text.find("\n", at) if at >= 0 else -1
    if end < 0:
        return []
    index = bisect_left(starts, end)
    stop = starts[index] if index < len(starts) else len(text)
    mine = [frame for frame in found if end < frame.at < stop]
    if not mine or mine[0].at != end + 1:
        return []
    said = said_at(text, at)
    for position, what in ended[bisect_left(ended, (end + 1,)):]:
        if position > stop:
            break
        if what != said:
            return []
    return mine


def complete(text: str, start: int, at: int, meter: Meter | None = None) -> bool:
    """Whether the traceback that starts at `start` (its marker) and ends at the exception line at `at` is
    shown whole: the marker, then Python's frames and their source lines only (`rules.STACK_LINE`), the first
    line a frame. A paste without the marker, with a blank, a cut path, `...` or an elided repeat between, may
    leave out frames: only a whole one tells which code is not on the stack."""
    if start < 0 or at < 0 or not text.startswith(rules.TRACEBACK_TEXT, start):
        return False
    body, end = text.find("\n", start) + 1, line_start(text, at)
    if body <= 0 or body >= end:
        return False
    meter = meter or Meter()
    meter.work += end - body
    lines = text[body:end - 1].split("\n")
    first = _STACK_LINE.match(lines[0])
    return first is not None and first.group(1) is not None and all(_STACK_LINE.match(line) for line in lines)


def installed_path(path: str) -> bool:
    """Whether one of a file's folders is one Python installs packages in (`rules.INSTALL_ROOT`)."""
    return any(_INSTALL_ROOT.search(one) for one in path.replace("\\", "/").split("/")[:-1])


def own_file(path: str, packages: tuple[str, ...]) -> bool:
    """Whether a frame's file is the user's own: an absolute path none of whose folders is one Python installs
    packages in, nor named like one of `packages` (the library's checkout at `/<library>/`); a relative one may
    be an installed package's, as errorkb's captures print them."""
    return _OWN_FILE.match(path) is not None and not installed_path(path) and \
        not any(one in packages for one in path.split("/")[:-1])


def installed_at(path: str, start: int) -> bool:
    """Whether the package folder that starts at `start` of a frame's path is an installed package's: the
    folder it stands in is one Python installs packages in (`rules.INSTALL_ROOT`), never another package's
    folder or a project's. A relative path that starts with the package's folder is the form errorkb's own
    captures print (the verified befores' tracebacks, relative to the environment): the installed package."""
    return start == 0 or (path[start - 1] == "/" and _INSTALL_ROOT.search(path, 0, start - 1) is not None)


def stated_release(text: str, library: str, meter: Meter | None = None) -> str | None:
    """Stage 5: the last release of `library` the paste states, or None."""
    found = stated_releases(text, library, meter)
    return found[-1] if found else None


def stated_releases(text: str, library: str, meter: Meter | None = None,
                    others: tuple[tuple[str, ...], ...] = ()) -> list[str]:
    """Every release of `library` the paste states, each once, in the order first stated: a paste that
    names two ("fails on 4.46, works on 4.57", an upgrade's `Successfully installed` after the error) does
    not say which one raised, so the matcher holds the answer to all of them, never to the last alone. A statement
    on a line that says something works or was fixed there (`rules.TOLD_WORKING`, not negated: `rules.TOLD_NOT`), or
    whose next line starts saying so (`rules.TOLD_NEXT`, a reply's `fixed it for me`), with no other release number
    states none: it compares its one release with an unnamed one, often the one that raised (a line naming two is
    held to both, `releases_beside`). "Doesn't work on 4.45" states 4.45: the release that raised. Nor does a
    release named as one to get, one required or one of the library's history (`_told_other`). `others`: the
    words before the library's name in other distributions' names (`statements`). What an installer's transcript says
    it replaced or uninstalled (`replaced`) states none."""
    if not library:
        return []
    meter = meter or Meter()
    found, told, asked, comment = [], {}, {}, {}
    listed: dict[int, bool] = {}  # a list item's line: whether it lists what an installer could not find
    gone = replaced(text, meter)
    matches = [match for match in statements(text, library, meter, others) if not inside(gone, match.start(1))]
    own: dict[int, set[int]] = {}  # a line's statements: where each release starts on it
    for match in matches:
        start = line_start(text, match.start(1))
        own.setdefault(start, set()).add(match.start(1) - start)
    for match in matches:
        start = line_start(text, match.start(1))
        if start not in told:  # each line read once, however many statements it holds
            end = text.find("\n", match.start(1))
            end = len(text) if end < 0 else end
            meter.work += end - start
            line = text[start:end]
            told[start] = _told_working(line, _next_line(text, end, meter), own[start])
            asked[start] = [(one.start(), one.group() == "?")  # positions in the text: finditer from `start`
                            for one in _SENTENCE_END.finditer(text, start, end)]
            marker = _COMMENT.search(line)  # a comment's marker (`rules.COMMENT`): what follows is not in effect
            comment[start] = end if marker is None else start + marker.start()
        if not told[start] and not _asked(asked[start], match.end(1)) and \
                not _told_other(text, start, match.start(), match.end(1), meter, comment[start] < match.start()) \
                and not _listed_not_found(text, start, listed, meter):
            found.append(match.group(1))
    return list(dict.fromkeys(found))


def _listed_not_found(text: str, start: int, listed: dict[int, bool], meter: Meter) -> bool:
    """Whether the line that starts at `start` is an item of a list an installer printed of the packages it could not
    find (`rules.LIST_ITEM` under `rules.NOT_FOUND_HEADER`, blank lines between): the first line above it that is
    neither an item nor blank says so. `listed` holds each line's answer once read, so a long list is read once."""
    if _LIST_ITEM.match(text[start:_line_end(text, start)]) is None:
        return False
    path, at, result = [], start, False
    while at not in listed:
        path.append(at)
        if at == 0:
            break
        above = line_start(text, at - 1)
        line = text[above:at - 1]
        meter.work += len(line) + 1
        if strip(line) and _LIST_ITEM.match(line) is None:
            result = _NOT_FOUND_HEADER.search(line) is not None
            break
        at = above
    else:
        result = listed[at]
    for one in path:
        listed[one] = result
    return result


def _asked(ends: list[tuple[int, bool]], at: int) -> bool:
    """Whether the sentence a statement ending at `at` is in ends with a question mark (`rules.SENTENCE_END`):
    `ends` are its line's sentence ends, in order, each with whether it is one."""
    index = bisect_left(ends, (at, False))
    return index < len(ends) and ends[index][1]


def statements(text: str, library: str, meter: Meter, others: tuple[tuple[str, ...], ...]) -> list[re.Match[str]]:
    """The paste's statements of a release of `library` (`rules.STATED`, group 1 the release; its prose forms read the
    name capitalised too, `{Name}`), but those whose name ends another distribution's, written with blanks or any
    separator: `others` holds the words before the library's name in such names (`("acme",)` for the library `tools`:
    "I use acme tools 5.1.0" states no release).
    Only those from `ran_from` on: an installer's line that a run follows replaced what was stated above it."""
    since = ran_from(text, library, meter)
    meter.work += len(text) - since
    named = library[:1].upper() + library[1:]  # `{Name}`: the name as prose capitalises it
    pattern = re.compile(rules.STATED.replace("{name}", escape(library)).replace("{Name}", escape(named)))
    return [match for match in pattern.finditer(text, since)
            if not (others and text.startswith((library, named), match.start())
                    and _ends_another(text, match.start(), others, meter))]


def ran_from(text: str, library: str, meter: Meter) -> int:
    """Where the paste's statements of a release start counting: the start of the last installer's record that a run's
    traceback follows directly (`rules.RAN_AFTER`: the release installed is the one that ran, what was stated above
    it was replaced), past its group 1 (uv's header and the lines before the library's `+` line, the release it
    removed among them), else 0."""
    meter.work += len(text)
    starts = [run.start() + len(run.group(1) or "")
              for run in re.compile(rules.RAN_AFTER.replace("{name}", escape(library))).finditer(text)]
    return starts[-1] if starts else 0


_SEPARATORS = " \t-_."  # what joins the words of a distribution's name as users write it (pip reads -_. alike)


def _ends_another(text: str, at: int, others: tuple[tuple[str, ...], ...], meter: Meter) -> bool:
    """Whether the words before `at` (read back, each after a run of separators, ASCII letters and digits, lower
    case, on the same line) are those of one of `others`: the name at `at` ends another distribution's."""
    longest = max(len(one) for one in others)
    words: list[str] = []
    end = at
    while len(words) < longest:
        stop = end
        while stop > 0 and text[stop - 1] in _SEPARATORS:
            stop -= 1
        start = stop
        while start > 0 and text[start - 1].isascii() and text[start - 1].isalnum():
            start -= 1
        meter.work += end - start
        if stop == end or start == stop:
            return False
        words.insert(0, text[start:stop].lower())
        if tuple(words) in others:
            return True
        end = start
    return False


def _next_line(text: str, end: int, meter: Meter) -> str:
    """The line after the one that ends at `end` ("" when none)."""
    if end >= len(text):
        return ""
    stop = text.find("\n", end + 1)
    stop = len(text) if stop < 0 else stop
    meter.work += stop - end
    return text[end + 1:stop]


def _told_other(text: str, start: int, at: int, end: int, meter: Meter, commented: bool = False) -> bool:
    """Whether a statement (the library's name at `at`, its release ending at `end`, on the line that starts at
    `start`) names a release to get, one required, one of the library's history or an environment in a shell's
    prompt (`rules.PROMPT_OPEN`, `rules.PROMPT_CLOSE`) or a line's comment (`commented`: after `rules.COMMENT`), not
    the one installed: the words just before the name (`rules.TOLD_OTHER_BEFORE`) or just after the release
    (`rules.TOLD_OTHER_AFTER`), each read in `rules.TOLD_WINDOW` characters of the line; never on a line that says it
    does not work (`rules.TOLD_NOT`)."""
    stop = text.find("\n", end)
    stop = len(text) if stop < 0 else stop
    before = text[max(start, at - rules.TOLD_WINDOW):at]
    after = text[end:min(stop, end + rules.TOLD_WINDOW)]
    meter.work += len(before) + len(after)
    prompt = at - start <= rules.TOLD_WINDOW and _PROMPT_OPEN.search(before) is not None and \
        _PROMPT_CLOSE.search(after) is not None  # an environment's name in a shell's prompt
    if not prompt and not commented and _TOLD_OTHER_BEFORE.search(before) is None and \
            _TOLD_OTHER_AFTER.search(after) is None:
        return False
    meter.work += stop - start
    return _TOLD_NOT.search(text[start:stop]) is None


def _told_working(line: str, after: str, own: set[int] | frozenset[int] = frozenset()) -> bool:
    """Whether a line that states a release says that it works or fixed it, itself or as its next line starts. A line
    naming two releases of the library (`own`: where its statements' releases start, and every other number but one
    joined to another distribution's name, `rules.BESIDE_NUMBER`) is held to both instead."""
    if len(own | {number.start(1) for number in _BESIDE_NUMBER.finditer(line)}) >= 2:
        return False
    if _TOLD_WORKING.search(line) is not None:
        return _TOLD_NOT.search(line) is None
    return _TOLD_NEXT.search(after) is not None and _TOLD_NOT.search(after) is None and \
        _RELEASE_NUMBER.search(after) is None


def releases_beside(text: str, library: str, meter: Meter | None = None,
                    others: tuple[tuple[str, ...], ...] = ()) -> list[str]:
    """Every release number on a line that states a release of `library` (`rules.BESIDE_NUMBER`), in order:
    "worked with <library> 4.57.1, fails after downgrading to 4.46.0" names two releases of it, and the line
    does not say which raised (each line once, however many statements it holds); then every release number in
    the paste of a stated release's major version ("With 4.46.0 it fails" on the next line): most likely the
    library's too. Only ever more releases to hold an entry to: never one that confirms."""
    if not library:
        return []
    meter = meter or Meter()
    found, done, majors = [], -1, set()
    gone = replaced(text, meter)
    for match in statements(text, library, meter, others):
        if inside(gone, match.start(1)):
            continue
        majors.add(match.group(1).split(".")[0])
        start = line_start(text, match.start(1))
        if start <= done:
            continue
        end = text.find("\n", match.start(1))
        end = len(text) if end < 0 else end
        meter.work += end - start
        found += [one.group(1) for one in _BESIDE_NUMBER.finditer(text, start, end) if not inside(gone, one.start(1))]
        done = start
    if majors:
        since = ran_from(text, library, meter)
        meter.work += len(text) - since
        found += [one.group(1) for one in _BESIDE_NUMBER.finditer(text, since)
                  if one.group(1).split(".")[0] in majors and not inside(gone, one.start(1))]
    return found


def replaced(text: str, meter: Meter) -> list[tuple[int, int]]:
    """Where an installer's transcript names what it replaced or uninstalled (`rules.REPLACED`: pip's `Found existing
    installation:` line, a conda transaction's line before its arrow), in order: no release there ran."""
    meter.work += len(text)
    return [(one.start(), one.end()) for one in _REPLACED.finditer(text)]


def inside(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether `at` lies in one of `spans` (ordered, disjoint)."""
    index = bisect_left(spans, (at + 1,)) - 1
    return index >= 0 and spans[index][0] <= at < spans[index][1]


def escape(text: str) -> str:
    """`text` as a regular expression that matches it, written alike for Python and JavaScript."""
    return re.sub(r"[.*+?^${}()|\[\]\\]", lambda m: "\\" + m.group(0), text)
