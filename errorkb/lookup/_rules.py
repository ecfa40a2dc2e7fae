"""The lookup's rules and constants, as data: one definition, read by the Python matcher and
shipped in every index (`rules_document`) for the page's JavaScript, which builds its regular
expressions and limits from that document instead of keeping copies (as MkDocs ships its
search separator to lunr). tests/site/test_lookup_js.py runs both on the whole corpus.

Every pattern is written in the common subset of Python's `re` and JavaScript's `RegExp`
(no possessive quantifiers, no inline flags, lookbehinds of fixed width), and none backtracks
over pasted text without bound: each is one pass over a line or a short path.
"""

from __future__ import annotations

import re
from typing import Any

RULES_VERSION = 50

CAP = 1 << 16  # characters of a paste read: its last 64 KiB
CHAIN = 64  # exception lines tried whole, counted from the end of the paste
# An error of the chain a paste ended with whose words the next part's exception line says again (a handler's
# `raise ValueError(str(error))`) is read on its own, the paste up to that chain sentence: at most RELAYS such parts,
# from the last (each reads the paste's part again; round thirty-two, rules 46).
RELAYS = 4
WHITESPACE = " \t\n\v\f\r"  # ASCII only: JavaScript's \s and Python's str.strip() differ
MAX_PATH = 1024  # characters of a frame's path looked at
TAIL_MIN = 24  # fixed characters a wording's end must keep to be offered alone (a paste of its tail)
TAIL_AFTER = ".,;:!?"  # a wording's end offered alone starts a clause: after one of these and a blank
# A wording's beginning offered alone (a title that quoted a message up to a clause's end, corpus h436) ends where
# a clause does, just before TAIL_AFTER's punctuation and a blank, keeps at least HEAD_MIN letters and digits of
# fixed text and ends with fixed text; in the paste it is closed by one of HEAD_CLOSE's quotes or by the end of
# its line: words that run on after it are another sentence, not the message's rest.
HEAD_MIN = 16
HEAD_CLOSE = "'\"`"
# ... or at a word's end inside its fixed text, just before a blank (a reporter who quoted a message up to where their
# sentence went on, corpus h848: `Make sure that a `_reorder_cache` function is correctly implemented` followed by the
# backtick that closed their code span). A word ends many more places than a clause does, so such a beginning keeps
# twice a clause's letters and digits of fixed text, and is closed in the paste exactly as a clause's is (with
# HEAD_MIN alone, two negatives of the corpus became candidates: `ValueError: too many values to unpack` cut before
# its `(expected 2)`, h503, and a sentence quoting `'has_previous_state'`, h107).
HEAD_WORD_MIN = 2 * HEAD_MIN
# ... and leaves out at least HEAD_WORD_REST names (NAME, holding a letter) of fixed text: a cut right before the
# wording's last name (`'DynamicCache' object has no attribute` without its `'key_cache'`, `unexpected keyword
# argument` without the keyword) drops the very word that tells one entry's error from another's.
HEAD_WORD_REST = 2
# A wording that ends with a placeholder, found inside a longer text, gives it no value where the search stops (the
# last fixed piece): when the entry holds that placeholder to a type or a relation, its value is the word after that
# piece (up to a blank or the line's end), less the punctuation a sentence or a quote closes it with
# (TRAILING_PUNCTUATION): `ValueError: Pool only has 4 slots, asked for slot 9.` gives 9 (a made-up library's words).
TRAILING_PUNCTUATION = ".,;:!?)]}'\"`"
# A removed API's own name retold in the reporter's words (a title such as `FrobConfig from acme cannot import`, or
# `` `Pool.to_legacy_pool` which was removed ``: corpus h416, h458), when no wording matched: a name no English
# word is (RETOLD_NAME: an underscore in it, or a capital after its first letter), whole (NAME: the name characters
# around it are its own), on a line whose lowercased words say it is gone (RETOLD_GONE). Only possible. Not Python's
# own words (`has no attribute`, `missing 1 required positional argument`): a message of Python's that names the
# removed name is the entry's wording and matches as such; one that names it otherwise (`'FrobPool' object has
# no attribute 'float'`, `FrobConfig.__init__() missing ...`) is another error (corpus r173, h017).
NAME = r"[A-Za-z0-9_]+"
RETOLD_NAME = r"^(?:[A-Za-z0-9]*_[A-Za-z0-9_]*|[A-Za-z0-9_]+[A-Z][A-Za-z0-9_]*)$"
RETOLD_GONE = (r"removed|no longer|(?:cannot|can't|can not|could not|couldn't|unable to|fails? to|failed to) import|"
               r"import ?error|(?:does not|doesn't|not) exist|not found")

# -- what terminals and tools wrap around an error (rule 2 of the lookup) -----------------------

# Marks no terminal prints in a traceback, which web forms, editors and chat clients lace text with: a soft hyphen, the
# zero-width space, joiners and word joiner, left-to-right and right-to-left marks, embeddings and isolates. They go
# (round sixteen): what the user saw is the text without them.
INVISIBLE = r"[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069]"
# The entities an HTML page's source or an escaped field writes a traceback's characters as (`&lt;module&gt;`,
# `&#39;Store&#39;`), each read once as the character a browser shows (`&amp;lt;` is `&lt;`).
HTML_ENTITIES = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&quot;": '"', "&#34;": '"', "&#39;": "'", "&#x27;": "'",
                 "&apos;": "'"}
HTML_ENTITY = r"&(?:lt|gt|amp|quot|apos|#34|#39|#x27);"
ANSI = r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|[@-Z\\-_])"
# A line's stamp: a date and a time, or a time alone (Jenkins' timestamper, moreutils' `ts`, rich's `[12:00:00]`;
# round seventeen: a traceback stamped so read as no traceback, and a user's own raise in it was confirmed).
_CLOCK = (r"\[?(?:[0-9]{4}-[0-9]{2}-[0-9]{2}[ T]|[0-9]{2}/[0-9]{2}/[0-9]{2}(?:[0-9]{2})?[ T])?"
          r"[0-9]{2}:[0-9]{2}:[0-9]{2}")
# syslog's and journalctl's `Jan  1 12:00:00 host python[123]: `, before every line of a service's traceback (one
# blank after the colon: the traceback's own indentation follows).
SYSLOG = (r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[ \t]+[0-9]{1,2}[ \t]+[0-9]{2}:[0-9]{2}:[0-9]{2}"
          r"[ \t]+[^ \t\n]+[ \t]+[^ \t\n:]+:[ \t]?")
TIMESTAMP = (_CLOCK + r"(?:[.,][0-9]+)?"
             r"(?:Z|[+-][0-9]{2}:?[0-9]{2})?\]?(?:[ \t,]+(?:-[ \t]+)?(?:[A-Za-z0-9_.<>-]+[ \t]+[-|:][ \t]+)?"
             r"\[?(?:CRITICAL|FATAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE)\]?:?)?[ \t]*(?:[-|:][ \t]*)?")
# A worker's tag and a serving engine's log header:
# `(EngineCore_0 pid=4077176) `, `ERROR 09-07 19:28:33 [core.py:712] `. Ray's tag names the worker's node when it
# is another (`(RayWorkerWrapper pid=3224131, ip=10.0.0.5) `) and no worker for a task (`(pid=3224131) `): round
# eighteen, the frames behind it were left unread. `_TAG` is the parenthesised tag alone (`PROCESS` marks a line
# by it).
_TAG = (r"\((?:[A-Za-z_][A-Za-z0-9_]*(?:,? [A-Za-z_]+=[A-Za-z0-9_.]+)*"
        r"|[A-Za-z_]+=[A-Za-z0-9_.]+(?:,? [A-Za-z_]+=[A-Za-z0-9_.]+)*)\)")
WORKER = _TAG + r"[ \t]+"
# OpenMPI's `--tag-output` (mpirun, horovodrun): `[1,0]<stderr>:` (job, rank, stream) before each line of each rank.
_MPI = r"\[[0-9]+,[0-9]+\]<std(?:out|err)>:"
LOG_HEADER = (r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)[ \t]+[0-9]{2}-[0-9]{2}[ \t]+[0-9]{2}:[0-9]{2}:[0-9]{2}"
              r"(?:\.[0-9]+)?[ \t]+\[[^\]\n]{0,200}\][ \t]?")
PREFIX = (r"(?<![^\n])(?:\[(?:rank|default)[0-9]+\]:[ \t]?|" + _MPI + r"[ \t]?|E(?: {2,}|\t)"
          r"|[A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]+\|[ \t]?|" + WORKER + "|" + LOG_HEADER + "|" + SYSLOG + "|" + TIMESTAMP
          + r")+")
# A log record's start at a line (after a launcher's tag, a container's name, pytest's margin, stacked): a timestamp
# (`TIMESTAMP`, with or without a level; a time alone), syslog's (`SYSLOG`), a serving engine's header
# (`LOG_HEADER`), Python logging's default `WARNING:acme.store:` (which `PREFIX` leaves: the exception's name is read
# inside the line), absl's and glog's `W0402 12:49:21.589123 12345 store.py:12] `. A line that carried one is a
# record the program logged and went on from: an exception line on it is never one of a list of errors the paste
# ended with (`_paste.listed`, round sixteen); the last exception line is the error the paste ended with, logged or
# not.
LOG_RECORD = (r"(?<![^\n])(?:\[(?:rank|default)[0-9]+\]:[ \t]?|" + _MPI + r"[ \t]?|E(?: {2,}|\t)"
              r"|[A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]+\|[ \t]?|" + WORKER + r")*(?:" + LOG_HEADER + r"|" + SYSLOG
              + r"|" + _CLOCK
              + r"|(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[A-Za-z0-9_.<>-]*:"
              r"|[IWEF][0-9]{4}[ \t]+[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?[ \t]+[0-9]+[ \t]+[^\]\n]{1,200}\])")
# A list of errors (`_paste.listed`) is exception lines Python or a test runner printed: the name starts its line,
# or stands after pytest's summary of one test (`FAILED tests/x.py::test_a - `, `ERROR tests/x.py - `; each a test
# that met it) or after a Markdown list's mark the user listed them with (`- `, `1. `): the text before it matches
# `LISTED_LEAD`. A name inside prose (`I had ImportError: ... before`), after a log's level a prefix did not take
# (`[WARNING] `, `[12:00:00] ERROR `) or a print's words (`caught ImportError: ...`) is no line of the list; nor is
# a line under the bare word a print or a tool puts before a message (`PRINTED_NAME`: `print(f"Error: {e}")`;
# Python prints a library's class by its module's name). Round seventeen.
LISTED_LEAD = r"^[ \t]*(?:(?:FAILED|ERROR)[ \t]+[^ \t\n]+[ \t]+-[ \t]+|[-*+][ \t]+|[0-9]+[.)][ \t]+)?$"
PRINTED_NAME = r"^[ \t]*(?:Error|Exception):"
# A process's marker at a line's start (a launcher's `[rank1]:`, a worker's `(EngineCore_0 pid=41)`, a container's
# `worker-1  | ` as docker compose prints it): lines marked
# by different processes (or some marked and some not) are different processes' output, which a launcher interleaves
# line by line. Before `PREFIX` goes, the lines of each process are put together, in the order the processes' last
# lines come (the unmarked ones are one more process): a frame one process printed is never read as a frame of
# another's error, and the error the paste ended with stays last.
PROCESS = (r"^(?:\[(?:rank|default)[0-9]+\]:|" + _MPI + "|" + _TAG + r"(?=[ \t])"
           r"|[A-Za-z0-9_][A-Za-z0-9_.-]*[ \t]+\|(?=[ \t]|$))")
# A tag no rule knows, learned from the paste (round twenty, the strict xfails of rounds seventeen and eighteen closed
# as a class): a launcher, a host's shell or a logger puts the same text before every line it prints (pdsh's
# `worker-1: `, a launcher's `[Rank 0] `, a logger's own format with its stamp), and so before the line of Python's
# traceback marker (`TRACEBACK_TEXT`). The text before the marker on its line is a tag when it starts a later line too,
# holds a letter or a digit (`TAG_CHARACTER`: never an indentation, a quote's `> `, an exception group's margin), is no
# prefix `PREFIX` removes whole nor starts with a process's marker `PROCESS` knows (those are read as before), and has
# at most `TAG_MAX` characters; the first `TAGS_MAX` such tags are learned, the longest tried first. Each tag is one
# more process's marker: its lines are put together as the known markers' are, the tag taken away.
TAG_CHARACTER = r"[A-Za-z0-9]"
TAG_MAX = 80
TAGS_MAX = 8
# An exception group (Python 3.11's `ExceptionGroup`, anyio's and asyncio's `TaskGroup`; traceback.py's
# `_ExceptionPrintContext.emit`) prints every line of its traceback and of each sub-exception's behind a margin,
# `| ` (the group's first line `+ `), indented two spaces more for each nested group, and a separator before each
# sub-exception (`+-+---------------- 1 ----------------`, `+------------------------------------` after the
# last). Read after `PREFIX` (a log's prefix stands before the margin), on its own: the margin goes, the Python
# traceback behind it keeps its indentation, and a separator leaves a blank line, so that each sub-exception reads
# as the traceback Python would print for it alone (its own marker, frames and exception line). One `[ \t]*` at a
# line's start: never a run of blanks split between two parts of a pattern.
GROUP_MARGIN = (r"(?<![^\n])[ \t]*(?:\|(?: |(?![^\n]))|\+ (?=Exception Group Traceback)"
                r"|(?:\+-)?\+-{16,}(?: (?:[0-9]+|\.\.\.) -{16,})?(?![^\n]))")
SUFFIX = (r"\. Did you (?:mean:(?: '[^'\n]*'\??)?(?: Or did you forget to import '[^'\n]*'\??)?"
          r"|forget to import '[^'\n]*'\??)[ \t]*(?![^\n])")

# rich's traceback (`rich.traceback.install()`, `Console.print_exception()`; rich/traceback.py) prints the
# frames in a box: `╭── Traceback (most recent call last) ──╮`, then per frame `│ path:480 in update │` and a
# numbered excerpt of its source, the failing line marked `│ ❱ 480 │   code │`, closed by `╰──╯`. A frame line
# longer than the box is folded at its edge (the line full: one space before `│`, mid-path or mid-number)
# or wrapped at a space (the line padded); either way its rest starts the next box line with a character
# that no excerpt line starts with (excerpt lines start with spaces or `❱`). Read in this order: the title
# becomes Python's marker (`TRACEBACK_TEXT`), the bottom edge goes, folded lines are joined as they were
# (`RICH_FOLD`: nothing between) and wrapped ones with the space the wrap took (`RICH_WRAP`), then the box's
# edges go (`RICH_EDGE`). An excerpt line longer than the box is cut by rich: its code is what rich shows.
# Below the box rich prints `ExceptionType: message` wrapped at the terminal's width, the space at each break
# taken: a line is joined to the next with a space when the next one's first word would not have fitted on
# it within the box's width (a line the message itself ends stays one), up to the first blank line.
_TRACEBACK_WORDS = r"Traceback \(most recent call last\)"  # Python's marker, as a pattern: one copy
# A log record written as JSON (python-json-logger's `exc_info`, structlog's `exception`, a cloud log's export) holds a
# traceback as one string: its line breaks written `\n`, its quotes `\"`, a Windows path's backslashes doubled. A
# JSON string that holds Python's marker followed by an escaped line break (`ESCAPED_TRACEBACK`, group 2 its body) is
# read first, as the text it encodes, on lines of its own (group 1, what stands before it, stays). The string stands
# where a log record does: at a line's start, after the prefixes a log puts there (`PREFIX`), alone, or as a value of a
# record the line opens (`{`, `[`) or of a pretty-printed record's key (`    "exc_info": `), past nothing but JSON's
# own tokens (`_JSON_TOKEN`: a string, a number, `true`, `false`, `null`, punctuation). A record opening or a string
# alone never stands after five blanks: a frame's code line behind a prefix (`(pid=1) `, a time, pytest's `E   `) is
# the prefix's separator and Python's four blanks of indentation, which `PREFIX` takes with it (a level padded to
# eight, `INFO     {`, is read only as one record closed at its line's end: below). Round nineteen: a string
# anywhere after `:`, `[`, `,` or `{` was read, and a line of source code holds such strings (a frame's code line
# `    {"exc_info": "Traceback ...\n..."}[key]`, an IPython cell's `      1 rec = {...}`): frames never printed as
# frames tied the user's own error beneath them to the library's entry. Each token matches one way, so a line is
# scanned from its start once (round eighteen: a string read from each escaped quote took time quadratic in a line's
# length). Each escape (`JSON_ESCAPE`: `\uXXXX` in group 1, one
# character in group 2) as `JSON_ESCAPES` says (`\uXXXX` as its character but a surrogate's half; any other escape
# stays as written). Round eighteen: the frames inside were left unread. A record inside another record's string (a
# JSON logger's line in Docker's json-file log, a cloud export of a record's text) is escaped twice, its line breaks
# `\\n`: the marker may be followed by any run of backslashes before `n`, and the strings are read again, each pass the
# next layer, until a pass finds none (round nineteen: a strict xfail of round eighteen's; round twenty-one: any depth,
# a strict xfail of round nineteen's). A layer doubles the backslashes before the marker's `n` at least (`\n`, `\\n`,
# `\\\\n`), so a paste of `CAP` characters holds at most `JSON_DEPTH` layers: the passes stop there.
_JSON_STRING = r'"(?:[^"\\\n]|\\[^\n])*"'
_JSON_TOKEN = (_JSON_STRING + r"|[ \t:,\[\]{}]|(?:-?[0-9][0-9.eE+-]*|true|false|null)(?![A-Za-z0-9_.+-])")


def _escaped_traceback(quote: str, string: str, token: str, flat: str) -> str:
    """A string written between `quote`s that holds a traceback, where a record stands (see above)."""
    inside = r"(?:[^" + quote + r"\\\n]|\\[^\n])"
    record = r"(?<![ \t]{6})(?<=[ \t]{5})\{(?=(?:" + flat + r"|[{}])*\}[ \t]*(?![^\n]))"  # after a padded level
    return (r"((?<![^\n])(?:" + PREFIX + r")?(?:(?:(?<![ \t]{5})[\[{]|" + record + r"|[ \t]*" + string
            + r"[ \t]*:)(?:" + token + r")*?|(?<![ \t]{5})))" + quote + "(" + inside + "*?" + _TRACEBACK_WORDS
            + r":\\+[rn]" + inside + "*)" + quote)


# A record opening after exactly five blanks (`INFO` padded to eight, `%(levelname)-8s`, and its separator) is read when
# it is one record that closes at its line's end, strings, numbers, literals, `:`, `,` and braces only (`_JSON_FLAT`,
# `_REPR_FLAT`; no `[`): a frame's code line behind `INFO ` is made of the same five blanks and `{`, and such a line is
# a dict display of constants, which calls nothing and raises nothing (`{...}[key]`, `{..., "n": [1][5]}` or a call in
# it stays code). Session 58: a strict xfail of session 52's.
_JSON_FLAT = _JSON_STRING + r"|[ \t:,]|(?:-?[0-9][0-9.eE+-]*|true|false|null)(?![A-Za-z0-9_.+-])"
ESCAPED_TRACEBACK = _escaped_traceback('"', _JSON_STRING, _JSON_TOKEN, _JSON_FLAT)
# A Python dict or string printed as Python writes it (`print(record)`, `logging`'s `%r`, a repr in a log line):
# `{'levelname': 'ERROR', 'exc_info': 'Traceback (most recent call last):\n  File "..."...'}`. `repr` writes a string
# that holds a `"` (a traceback's `File "..."`) between single quotes, escaping `\'`, `\\`, `\n`, `\t` and what it
# does not print as `\xhh`, `\uhhhh`, `\Uhhhhhhhh`: the same read in the same place, its tokens Python's
# (`_REPR_TOKEN`: strings in either quote, a number, `True`, `False`, `None`, punctuation, a tuple's parentheses).
# Round twenty-one (a strict xfail of round eighteen's).
_REPR_STRING = r"'(?:[^'\\\n]|\\[^\n])*'"
_REPR_TOKEN = (_REPR_STRING + "|" + _JSON_STRING
               + r"|[ \t:,\[\](){}]|(?:-?[0-9][0-9.eE+-]*|True|False|None)(?![A-Za-z0-9_.+-])")
_REPR_FLAT = (_REPR_STRING + "|" + _JSON_STRING
              + r"|[ \t:,]|(?:-?[0-9][0-9.eE+-]*|True|False|None)(?![A-Za-z0-9_.+-])")
REPR_TRACEBACK = _escaped_traceback("'", _REPR_STRING, _REPR_TOKEN, _REPR_FLAT)
# Docker's json-file log of plain output (and a log shipper's record of it: fluentd's, a cloud's) writes each line a
# program printed as one record on a line of its own, the line and its line break one string (`{"log": "  File
# \"...\", line 3, in f\n", "stream": "stderr", ...}`): a traceback is split over as many records. Such a line, a
# record whose value is one line ended by its escaped line break (`LINE_RECORD`, group 2: the first such value), is
# read as that line before the records above are (what stood before the record, group 1, stays: a stamped time). The
# strings before it end otherwise (`_NOT_A_LINE`), so each token matches one way and a line is scanned once; a record
# after five blanks is a code line's, as above. Round twenty-one (a strict xfail of round nineteen's).
_NOT_A_LINE = r'"(?:[^"\\\n]|\\[^\n])*(?<!\\n)"'
LINE_RECORD = (r"((?<![^\n])(?:" + PREFIX + r")?)(?<![ \t]{5})\{(?:" + _NOT_A_LINE
               + r"|[ \t:,\[\]{}]|(?:-?[0-9][0-9.eE+-]*|true|false|null)(?![A-Za-z0-9_.+-]))*?"
               + r'"((?:[^"\\\n]|\\[^n\n])*)\\n"(?:' + _JSON_TOKEN + r")*\}[ \t]*(?![^\n])")
JSON_DEPTH = CAP.bit_length()  # 17: layers of escapes a kept paste can hold (see above)
# One escape of either (`ESCAPE`: `\xhh` in group 1, `\uhhhh` in 2, `\Uhhhhhhhh` in 3, one character in 4): JSON writes
# no `\x`, `\U` or `\'`, Python's repr no `\/`, so one table reads both (`ESCAPES`).
JSON_ESCAPE = r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|([^xuU\n]))"
JSON_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "'": "'", "\\": "\\", "/": "/"}
RICH_TOP = r"(?<![^\n])╭─* ?" + _TRACEBACK_WORDS + r" ?─*╮[ \t]*(?![^\n])"
RICH_BOTTOM = r"(?<![^\n])╰─*╯[ \t]*(?![^\n])"
RICH_FOLD = r"(?<=[^ \t\n│]) │\n│ (?=[^ \t\n❱│])"
RICH_WRAP = r"(?<=[^ \t\n│])[ \t][ \t]+│\n│ (?=[^ \t\n❱│])"
RICH_EDGE = r"(?<![^\n])│[ \t]*│[ \t]*(?![^\n])|(?<![^\n])│ ?|(?<=[^ \t\n])[ \t]*│[ \t]*(?![^\n])"
TRACEBACK_TEXT = _TRACEBACK_WORDS.replace("\\", "") + ":"
# A frame line broken by a terminal or a web form at a fixed width (mid-path, mid-number, mid-word), its rest
# on the next line, at its start or indented again: a `File "...` line that stops before its `", line N, in
# name` is complete is joined with the next line (whose indentation goes). A line that stops right after the
# path's quote or the line's number is joined only when the next line goes on with `,` or a digit: a frame
# printed without `, in name` (a SyntaxError's) or a cut paste's `File "x"` is left as it is. Parts may lose
# the space a web form's wrap took (`line\n2564`): Python's frame (FRAME_LINE) reads `",line2564,in f` as
# `", line 2564, in f`.
# Applied until no line is left incomplete (a path longer than twice the width breaks twice), at most
# FRAME_WRAPS times. A line broken inside the function's name reads complete: its name stays cut.
FRAME_WRAP = (r'(?<![^\n])([ \t]*File "(?:[^"\n]*|[^"\n]*"[ \t]*(?=\n[ \t]*,)'
              r'|[^"\n]*"[ \t]*,[ \t]*(?:l(?:i(?:n(?:e[ \t]*)?)?)?)?'
              r'|[^"\n]*"[ \t]*,[ \t]*line[ \t]*[0-9]+[ \t]*(?=\n[ \t]*[0-9,])'
              r'|[^"\n]*"[ \t]*,[ \t]*line[ \t]*[0-9]+[ \t]*,[ \t]*(?:i(?:n[ \t]*)?)?))\n[ \t]*')
FRAME_WRAPS = 4
# Where Python's frame line has a blank after a cut FRAME_WRAP joins (after `",`, `line`, `line N,` and `in`), the cut
# fell right before it or right after it: the join puts it back. When the rest starts with no blank, the terminal cut
# after the blank, the cut line's last character, which LINE_END took: it counts in the width EXCEPTION_WRAP_END reads
# (`...run.py", line ` / `120, in main` at 50 columns reads 49 without it). Matched on FRAME_WRAP's group 1 (its end).
FRAME_CUT_BLANK = r'"[ \t]*,(?:[ \t]*line(?:[ \t]*[0-9]+[ \t]*,(?:[ \t]*in)?)?)?$'
# The same, broken inside the function's name (the line reads complete): the rest of the name alone on the
# next line, under the frame line's indent (a web form) or at the line's start (a terminal), never as deep as
# a source line; only a name that starts lowercase, so a bare exception (`KeyboardInterrupt`) is never one.
FRAME_NAME_WRAP = (r'(?<![^\n])([ \t]+)(File "[^"\n]*",[ \t]*line[ \t]*[0-9]+,[ \t]*in[ \t]*[A-Za-z0-9_<>]+)'
                   r"\n(?:\1)?([a-z0-9_<>][A-Za-z0-9_<>]*)[ \t]*(?![^\n])")

# -- the parts of a traceback (rules 3 and 6) ----------------------------------------------------

EXCEPTION_LINE = r"(?<![^\n])[ \t]*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*): ([^\n]*)"
# An exception named inside a line, after the text a tool put before it: `❌ Generation failed: Node
# processing failed: AttributeError: ...`, `Error during generation: KeyError: 'x'`. Only a name that
# reads as an exception class's (`...Error`, `...Exception`, `...Warning`) after a space or a colon.
INLINE_EXCEPTION = (r"(?<=[ \t:])((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*(?:Error|Exception|Warning))"
                    r": ([^\n]*)")
STOP_LINE = (r"(?<![^\n])(?:[ \t]*(?![^\n])|Traceback \(most recent call last\):"
             r"|During handling of the above exception|The above exception was the direct cause)")
TRACEBACK = _TRACEBACK_WORDS + ":"
# The exception line that ends a traceback, as Python prints it: at a line's start, a name that reads as an
# exception class's (`IndexError`, `pkg.OutOfMemoryError`, `KeyboardInterrupt`), then `: message` or nothing.
# A traceback's frames stand between its marker and this line: the frames above it are never those of an
# exception line further down (a log that goes on after a request's traceback, then prints a bare error),
# unless that line says the same exception again (pytest's summary line, a log's `str(e)`). A log's level
# (`INFO: ...`), a code line (indented) or IPython's header (`KeyError   Traceback (...)`) is none. An exception
# group's line (`ExceptionGroup: ... (2 sub-exceptions)`) ends the group's own traceback: the frames where the group
# was raised are none of a sub-exception's (one never raised prints its exception line alone).
TRACEBACK_END = (r"(?<![^\n])(?:[A-Za-z_][A-Za-z0-9_]*\.)*(?:[A-Za-z_][A-Za-z0-9_]*"
                 r"(?:Error|Exception|Warning|Interrupt|Exit|Iteration|Group)|Failed)(?::[^\n]*|[ \t]*)(?![^\n])")
# A terminal that cut the frame lines at a width cuts the exception line there too (r192: `...positional argumen` /
# `t: 'past'`, at 80 columns): when the longest frame line the first pass of FRAME_WRAP (or FRAME_NAME_WRAP: cut inside
# the function's name) joins is W characters (a cut after a blank FRAME_CUT_BLANK reads counts its blank) and no line
# from the first of them on is longer than W, an exception line (TRACEBACK_END) of exactly W characters goes on at the
# next line with nothing between, again while each part is W long; never onto a line this pattern reads: a blank line,
# a traceback's marker or chaining line (STOP_LINE), a frame line or another exception's line. Round thirty-one; the
# cut after a blank and inside the name, session 58.
EXCEPTION_WRAP_END = r'(?:' + STOP_LINE + r'|(?<![^\n])[ \t]*File "|' + TRACEBACK_END + r')'
# A terminal that cut a line right after one of its blanks left that blank as the cut line's last character, which
# LINE_END takes before EXCEPTION_WRAP_END's width is read: an exception line cut so (`...'DynamicCache' object ` /
# `has no attribute 'key_cache'`) read W - 1 and stayed cut. Before LINE_END, the text of each line that ends with
# exactly one blank is noted with that blank (CUT_BLANK_END, group 1), unless the same text stands in the paste as a
# whole line without it or with another blank (which copy was cut is not told), and none when any line ends with two
# or more blanks (PADDED_END: a console, an editor or a quoted reply that pads lines to one width, where one blank is
# padding too). An exception line of W - 1 characters so noted fills the width, and its join puts the blank back.
# Session 60, round thirty-one's strict xfail.
CUT_BLANK_END = r"(?<![^\n])([^\n]*[^ \t\n])[ \t](?![^\n])"
PADDED_END = r"[ \t][ \t](?![^\n])"
# The error a paste ended with decides what can be confirmed: its last exception line whose name reads as an
# exception's (`FATAL_NAME`: not a log's `INFO:`, not a warning printed at shutdown), the earlier lines that say
# it again, and the exceptions a chain sentence (`CHAINED`) ties to it. Matched anywhere else, an entry is a
# candidate. pytest's own outcome, `Failed` whole (`Failed: DID NOT RAISE <class 'KeyError'>`, pytest-timeout's
# `Failed: Timeout >10.0s`, `_pytest.outcomes.Failed: ...`), is such an error too: the message its test's
# `pytest.raises(..., match=...)` quotes was not raised, and an error before it is not what ended the test.
FATAL_NAME = r"(?:Error|Exception|Interrupt|Exit|Iteration)$|(?:^|\.)Failed$"
# A failed check: a test's `assert`, unittest's `assertEqual`, pytest.raises' `match`, numpy.testing's `assert_equal`
# raise `AssertionError` with a message that quotes what the check compared (`assert "a" == "b"`, `"a" != "b"`,
# ` DESIRED: "b"`). An entry's words inside such a message are an operand the test wrote or one it got, not an error the
# library raised: a message that holds the library's words inside a longer one reads as a wrapper's retelling of that
# error (`failed: {error}`), a check's never does (round twenty: a test comparing an error's text with the entry's
# confirmed the entry). The error the paste ended with is a failed check when its exception line's name is
# `CHECK_NAME`, or, with no exception line, when a line starts with the class's name (`AssertionError:` whose message
# is on the lines below, numpy's) or with pytest's rewritten `assert` (its `E` margin gone; `--tb=line`'s `path:12: `,
# the summary's `FAILED path::test - ` before it): `CHECK_LINE`. Words matched whole, or found inside under an entry
# whose own exception is a check's (a runtime's `AssertionError`), are read as before.
CHECK_NAME = r"(?:^|\.)AssertionError$"
CHECK_LINE = (r"(?<![^\n])(?:(?:[A-Za-z_][A-Za-z0-9_]*\.)*AssertionError(?::|(?![^\n]))"
              r"|(?:[^ \t\n]+:[0-9]+: |(?:FAILED|ERROR)[ \t]+[^ \t\n]+[ \t]+-[ \t]+)?assert[ \t])")
CHAINED = r"(?<![^\n])(?:During handling of the above exception|The above exception was the direct cause)"
# "During handling of the above exception" says only that the later exception was raised while the earlier one was
# being handled: a handler that falls back to other code and fails there shows a new error, whose cause the earlier one
# is not. It ties them only when the handler raised it (the later traceback's failing line, its last line before the
# exception line but Python 3.11's position markers, is a `raise`: `RERAISE`) or the later message restates the
# earlier one. "The above exception was the direct cause" (`raise ... from error`) always ties them.
HANDLING_TEXT = "During handling of the above exception"
RERAISE = r"^[ \t]*raise(?![A-Za-z0-9_])"
# A warning as Python's `warnings` prints it: `path:line: Category: message` (this header), then, on the next line
# and indented, the source line that issued the warning. That line ran before the error, anywhere (a runtime's
# one-time `UserWarning: acme was built without fast kernels` echoes `out = acme.fused_attention(q, k, v)` above any
# later error): it is no failing line, so an entry's `recognised_by` read there ties nothing. The warning's message
# still counts (a library's own warning may be the clue). The echo is the first indented line after the header (an
# indented frame there is a traceback's, no echo): a message printed over several lines puts it under its last line.
# A line that starts something else (another header, an exception line, a frame, an arrow, a blank line, a
# traceback's marker: `_match.py:_ends_message`) ends the message with no echo shown. The header ends at the
# category, so a line is scanned once (nothing after it to fail and backtrack over).
WARNING_HEADER = r"(?<![^\n])[^\n]*:[0-9]+: (?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*Warning: "
# A frame as Python prints it (`File "x.py", line 3, in f`), as IPython 8 does (`File ~/x.py:3, in Class.f(a)`),
# as IPython 7 (Colab) does (`/usr/lib/x.py in f(a)`, `<ipython-input-4-ab> in <module>`: the line number is
# on the `--> 3` arrow below it) and as pytest does (`x.py:3: in f` above the source line; its long entries
# print the source first, then `x.py:3: ` or, for the last, `x.py:3: ValueError`). Groups: 1, 2 Python's
# path and line; 3, 4 IPython 8's; 5 the function of either; 6, 7 IPython 7's path and function; 8, 9, 10
# pytest's path, line and function (none in a long entry); 11, 12, 13 rich's (`path:480 in update`, its
# failing line the `❱ 480` arrow below it; a fold at the box's edge beside `in` may take its space).
# A path may start with a Windows drive (`C:`). loguru (`logger.exception`, `logger.catch`) marks the frame where the
# error was caught with `> ` before its `File` (`> File "app.py", line 8, in step`): a frame like the others. pytest's
# `>` marks a source line (`PYTEST_FAILING`), which never reads `File "...", line N`.
# A traceback quoted in Markdown (a reply on GitHub, an e-mail) has `> ` before every line, `> > ` when quoted
# twice: a run of two or more lines that each start with `>` (`QUOTED`) loses those marks (`QUOTE_MARK`, each `>`
# with the one space or tab after it). A single `>` line is pytest's mark of the failing line (`PYTEST_FAILING`),
# kept: pytest never marks two lines in a row.
QUOTED = r"(?<![^\n])>[^\n]*(?:\n>[^\n]*)+"
QUOTE_MARK = r"(?<![^\n])(?:>[ \t]?)+"
# A unified diff's hunk: its header (`@@ -310,7 +310,7 @@ ...`), then the lines it marks (`-` removed, `+` added, a
# blank: context, `\` git's "No newline at end of file"), up to the first line marked otherwise. The paste is read as
# the text the diff leaves: its added and context lines without their mark; a removed line (`-KeyError: ...`, the
# removed `raise`) is what that text no longer says, never the paste's error. A line marked `-` alone is a Markdown
# list's item as often as a diff's line: read as written. A change pasted without its header (`DIFF_CHANGE`: a run
# of lines marked `-`, then at once a run marked `+`) is read as the hunk's lines are: a list's item has one blank
# after its mark (`- item`; a diff's code line none or its indentation's four) and a list never changes its mark from
# `-` to `+` between two items; doubled marks (`---`, `+++`) are a rule or a file's header. Round ten's strict xfail,
# closed in session 52. The pattern takes a whole run of `-` lines and the `+` lines after it, none or more (a run with
# none stays as written): it never fails after reading a run, so each line is read once (`+` required in the pattern:
# time quadratic in a run's lines, 150 s for 64 KiB of `-x` lines).
DIFF_HUNK = r"(?<![^\n])@@ -[0-9]+(?:,[0-9]+)? \+[0-9]+(?:,[0-9]+)? @@[^\n]*(?:\n[-+ \\][^\n]*)*"
_UNLISTED = r"(?![ \t][^ \t\n])"  # no list item's single blank after the mark
DIFF_CHANGE = (r"(?<![^\n])-(?!-)" + _UNLISTED + r"[^\n]*(?:\n-(?!-)" + _UNLISTED + r"[^\n]*)*"
               r"(?:\n\+(?!\+)" + _UNLISTED + r"[^\n]*)*")
DIFF_KEPT = "+ "  # the marks of the lines a hunk leaves in the text (added, context)
# A doctest's report of an example whose output differed: `Expected:`, the output the example should have printed,
# indented, then `Got:` (or `Got nothing`). The expected lines (a traceback the example was meant to raise) are not what
# it did: read without them, `Expected:` and `Got` kept. Each line of the run is read once: the run ends at the first
# line that starts with no blank, where `Got` is tried once.
DOCTEST_EXPECTED = r"(?<![^\n])(Expected:)\n(?:[ \t][^\n]*\n)*(Got(?::| nothing))(?![^\n])"
# Spaces and tabs at the end of a line go (`LINE_END`): an editor or a quoted reply pads lines to one width
# (LangBridge#6), and a message printed on two lines must still read as its wording.
LINE_END = r"(?<![ \t])[ \t]+(?![^\n])"  # from a run's first space: one try a run
# Read again after the last substitution: a notebook link's text of blanks (`LINK`) or the blanks before Python's hint
# (`SUFFIX`) would leave some at a line's end, where a pattern that splits a run of blanks backtracks over it.
# A notebook's traceback copied from its rendered output keeps the links the notebook drew, as Markdown: VS
# Code's `File [~/x.py:115](https://vscode-remote+.../x.py:115), in f(...)` and `---> [28](vscode-notebook-cell:
# ?execution_count=4&line=28) code`, Jupyter Lab's `File [~/x.py:1520](http://localhost:8080/lab/tree/...), in ...`
# and `File "[/x.py", line 390](http://127.0.0.1:8976/lab/tree/...), in forward`, Colab's `[/usr/.../x.py](https://
# ...colab.googleusercontent.com/outputframe.html?vrz=...#) in f(...)`. Such a link is read as its text (group 1),
# the address dropped, so that the frame reads as the notebook printed it; only a link to a web, file or
# editor address is one (`[0](x)` in a message, a list printed `[1](2)`, is left as it is).
LINK = r"\[([^\[\]\n]*)\]\((?:https?://|file://|vscode-[A-Za-z0-9+.-]*:)[^()\s]*\)"
# The folder a frame's package folder stands in, for the frame to be the library's own (`INSTALL_ROOT`, matched
# against the path before the package's folder): an environment's `site-packages` or `dist-packages`, a
# checkout's `src`, an egg's or a wheel's folder. A file named like the library's in a folder named like it
# anywhere else is another package's copy (`optimum/habana/<library>/...`, `ipex_llm/<library>/...`) or a
# project's own folder: it neither confirms an entry by its frame nor tells the release by its line. A relative
# path that starts with the package's folder (errorkb's own captures print them so) is the installed package.
INSTALL_ROOT = r"(?:^|/)(?:site-packages|dist-packages|src|[^/\n]+\.egg|[^/\n]+\.whl)$"
# A failing line that raises the exception itself (`raise AttributeError("...")`): where it stands in a file no
# installed package holds (an absolute path, `OWN_FILE`, none of whose folders is an `INSTALL_ROOT`), the user's
# own code wrote the words, whatever entry they match (round fifteen).
OWN_RAISE = r"^raise(?![A-Za-z0-9_])"
OWN_FILE = r"^(?:/|~/|[A-Za-z]:/)"
# Words found inside a longer message (`failed: 'Store' object has no ...`) are a wrapper's retelling of an earlier
# error, unless the `raise` that printed them holds the wording's longest fixed piece itself (its comment aside, a
# backslash's escapes read as the quote they escape), at least `WRITTEN_MIN` characters of it: then the user's
# literal wrote them (`raise RuntimeError(f"step {i}: 'Store' object has no attribute 'old_field'")`), ruled out as
# a whole own raise is (round seventeen).
WRITTEN_MIN = 16
# Such a `raise` that builds its message from a value alone, with no words of its own: its string literals hold
# placeholders and blanks only, in any formatting style (`raise RuntimeError(str(error)) from None`,
# `raise AttributeError(message)`, `raise NodeError(f"{error}")`, `f'  {error} '`, `'%s' % error`,
# `'{}'.format(error)`, `' ' + str(error)`). A handler that relays a library's error by its text loses the chain this
# way: the words may be the library's, or the user's own; possible, never confirmed (round sixteen), whatever blanks
# it adds (round thirty-four: a trailing blank read as the user's own words, `%s` and `.format` too).
RELAYED = r"^raise(?:[ \t](?:[^'\"\n]|(['\"])(?:\{[^{}'\"\n]*\}|%(?:\([^()'\"\n]*\))?[-#+]*[0-9]*(?:\.[0-9]+)?[rsa]" \
    r"|[ \t]|\\[tnr])*\1)*)?$"
# A string on a failing line is text, not code: `log("cache.key_cache is gone")` uses no `key_cache`. Its text is a
# use only where the whole of it is a name or a dotted name (`NAMED_STRING`): code that reads an attribute by its name
# (`getattr(cache, "key_cache")`, `attrgetter("cache.key_cache")`). An f-string's replacement fields are code
# (`f"{cache.key_cache[0]}"`); `STRING_PREFIX` is the letters before a quote that open a literal, an `f` among them
# an f-string's (round twenty-one).
NAMED_STRING = r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$"
STRING_PREFIX = r"(?<![A-Za-z0-9_])[rRbBuUfF]{1,2}$"
# Not a frame: a warning (`x.py:3: FutureWarning: ...`), a linter's `x.py:3:5: E501`, prose.
FRAME = r"File \"([^\"\n]*)\", line ([0-9]+)"
FRAME_LINE = (r"(?<![^\n])[ \t]*(?:(?:>[ \t]+)?File (?:\"([^\"\n]*)\",[ \t]*line[ \t]*([0-9]+)"
              r"|((?:[A-Za-z]:)?[^\"\s:]+\.py):([0-9]+))"
              r"(?:,[ \t]*in(?: |(?=[A-Za-z_<]))([^\n]*))?"
              r"|((?:[A-Za-z]:)?[^\"\s:]+\.py|<ipython-input-[^>\n]*>) in ([A-Za-z_<][A-Za-z0-9_.<>]*)"
              r"(?=\(|[ \t]*(?![^\n]))"
              r"|((?:[A-Za-z]:)?[^\"\s:]+\.py):([0-9]+):"
              r"(?: in ([^\n]*)|[ \t]*(?:[A-Za-z_][A-Za-z0-9_.]*[ \t]*)?(?![^\n]))"
              r"|((?:[A-Za-z]:)?[^\"\s:]+\.py):([0-9]+) ?in ?([A-Za-z_<][A-Za-z0-9_.<>]*)[ \t]*(?![^\n]))")
# A line of a complete traceback, between its marker and its exception line, as Python prints it (`STACK_LINE`):
# a frame (group 1) whose path is whole (no `...` or `…` put in for a cut), or an indented source or position
# line that is no elision (`...`, `…`, `[Previous line repeated 2 more times]`). Any other line (a blank, a log
# line, another tool's frame) leaves the traceback possibly cut: it says nothing of the frames it does not show.
STACK_LINE = (r'^(?:([ \t]*File "(?![^"\n]*(?:\.\.\.|…))[^"\n]*",[ \t]*line[ \t]*[0-9]+,[ \t]*in[ \t][^\n]*)'
              r"|[ \t]+(?!\.\.\.|…|\[(?:\.\.\.|…|Previous line repeated))[^ \t\n][^\n]*)$")
# A run of blanks is read by one quantifier (`(?:[ \t]*[0-9]+)?[ \t]+`, never `[ \t]*[0-9]*[ \t]+`): two that could
# split it between them backtrack over every split when what follows fails (quadratic in the run's length).
CODE_LINE = r"^[ \t]+(?:-+>(?:[ \t]*[0-9]+)?[ \t]+)?([^ \t\n][^\n]*)$"  # the source line printed under a frame
# IPython marks the failing line of each cell or frame with an arrow: `---> 10     height, width = img.shape[:2]`
# (group 1 the line's number, group 2 its code); rich with `❱ 10 │   code` (`│` its indent guides).
ARROW_LINE = (r"(?<![^\n])[ \t]*(?:-+>|❱)(?:[ \t]*(?:\[[0-9]+\]\([^)\n]*\)|([0-9]+)))?[ \t]+(?:│[ \t]+)*"
              r"([^ \t\n][^\n]*)")
# pytest's long entry prints the frame's source above its location line: the function is the one the source
# starts with (`    def update(self, ...):`), the failing line the one marked `>`.
PYTEST_DEF = r"(?<![^\n])[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_][A-Za-z0-9_]*)"
PYTEST_FAILING = r"(?<![^\n])>[ \t]+([^ \t\n][^\n]*)"
MARKERS = r"^[ \t~^]*$"  # Python 3.11's  ~~~^^^^  position lines
# The characters of a name (a class, a dotted function), as data both matchers read one character at a
# time (a regular expression anchored at a text's end would rescan a long text from every position): a
# fixed wording found inside a longer word is not that wording (`LlamaModel.forward()` inside
# `MyLlamaModel.forward()`); a placeholder that is part of a name (`'{model}Attention'`) stands, for its
# type, for the whole name; a leading placeholder found inside a text takes the name the text before the
# first fixed piece ends with (`TinyChartPhiForCausalLM.forward` in `推理报错TinyChartPhiForCausalLM.forward`).
NAME_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
DOTTED_NAME_CHARS = NAME_CHARS + ".<>"  # `Outer.<locals>.forward`
# A wording that starts with one of these letters also matches with that letter capitalised: an issue
# title or a sentence retypes Python's `cannot import name ...` as `Cannot import name ...` (Python
# never capitalises its own messages). Only the first letter, only ASCII: every other character's case
# still counts.
LOWER_FIRST = "abcdefghijklmnopqrstuvwxyz"
# Python words an attribute missing from an instance `'X' object has no attribute 'name'` and one missing from
# the class itself `type object 'X' has no attribute 'name'` (code that patches a method reads it from the class:
# corpus h510). A wording of the instance's form (`'`, then `ON_INSTANCE` once) is read in the class's form too:
# `ON_CLASS_PREFIX` for its opening quote and `ON_CLASS` for `ON_INSTANCE`. Only as possible: the class's words
# are the same removal for what the class defines (a method, a class attribute), but an attribute each instance
# sets in `__init__` is missing from its class on every release, and no paste tells which the name is. An entry
# whose own wordings say `type object ...` declares them, and is read as declared.
ON_INSTANCE = "' object has no attribute '"
ON_CLASS_PREFIX = "type object '"
ON_CLASS = "' has no attribute '"
PLAIN_RELEASE = r"^[0-9]+(?:\.[0-9]+)*$"
CLAUSE = r"^(~=|==|!=|<=|>=|<|>)[ \t]*([0-9]+(?:\.[0-9]+)*)(\.\*)?$"
# `<library>==4.41.2`, `<library> version: 4.41.2`, "- `<library>` version: 4.41.2" (the issue
# template's line), `<library> 4.41.2`: a release the paste states. So does the installed
# distribution's own name in a path or a listing: pip's `<library>-4.41.2.dist-info` (`.egg-info`),
# an egg's `<library>-4.41.2-py3.10.egg/`, a conda build `<library>-4.41.2-pyhd8ed1ab_0`. Each form
# asserts what follows its release (one capture group, read alike by both matchers). `{name}` is the
# library's name; a name it ends (`sentence-<library>`) is another distribution. A release ends a sentence
# (`I'm on <library> 4.57.1.`), never a longer one (`4.46.0.dev0`: no release stated). So does a release in
# parentheses right after the name and a blank (`<library> (v4.56.1)`, corpus h882; Poetry's `Installing <library>
# (4.56.1)`), closed at once: an arrow (Poetry's `Updating <library> (4.40.0 -> 4.46.3)`), a constraint or a second
# release inside states none (round thirty-seven).
# These prose forms read the name with its first letter capitalised too (`{Name}`), as titles and sentences write it
# (`the installed <Library> 4.57.6`, corpus h091): only the first letter (`<LIBRARY> 4.57.6` states none);
# installers' records print the distribution's own name and keep `{name}` (round thirty-seven).
_RELEASE = r"[0-9]+\.[0-9]+(?:\.[0-9]+)?"
# So do what pip and conda print: `pip show`'s `Name: <library>` then `Version: 4.41.2`, pip's `Successfully
# installed ... <library>-4.41.2` (a whole release, then a space, a comma or the line's end), a conda spec
# `<library>=4.41.2`. A constraint (`>=`, `~=`) states no release.
# pip's `<library>-4.41.2` counts only on its `Successfully installed` line: elsewhere a name and a release
# joined by a hyphen is a folder's or an environment's name (`~/<library>-4.30.0`, `conda activate
# <library>-4.30.0`, a frame's path broken after such a folder), which says nothing of what is installed.
# conda's transaction prints one package a line, its old build, an arrow and its new one (`  <library>:   4.40.0-py_0
# [channel] --> 4.46.3-pyhd8ed1ab_0  conda-forge`, conda/conda#4066, ContinuumIO/anaconda-issues#9328; a channel's
# `conda-forge::<library>-` before a build at times): the release after the arrow, followed by its build string, is
# stated (the line's first alternative, which reads past the old build), never the one before it (`REPLACED`).
_CONDA_BUILD = r"-[A-Za-z0-9_.]+(?![^ \t\n])"  # conda's build string after a release: `-pyhd8ed1ab_0`, `-py_0`
STATED = (r"(?:(?<![^\n])[ \t]*{name}:?[ \t]+[^\n]*?[ \t]-->[ \t]+(?:[^ \t\n]*::{name}-)?"
          r"(?=" + _RELEASE + _CONDA_BUILD + ")"
          r"|(?<![^\n])[ \t]*Successfully installed (?:[^ \t\n]+[ \t]+)*?{name}-"
          r"(?=[0-9]+\.[0-9]+\.[0-9]+(?![^ \t\n,]))"
          r"|(?<![A-Za-z0-9_.-])(?:{name}|{Name})(?:`?(?:[ \t]*==[ \t]*|[ \t]+version:?[ \t]*|:[ \t]*|[ \t]+v?|="
          r"|[ \t]*\nVersion:[ \t]*)"
          r"(?=" + _RELEASE + r"(?![0-9A-Za-z]|\.[0-9A-Za-z]))"
          r"|-(?=" + _RELEASE + r"(?:\.dist-info|\.egg-info|-py[0-9h]))"
          r"|`?[ \t]+\([ \t]*v?(?=" + _RELEASE + r"[ \t]*\))))(" + _RELEASE + ")")
# Which of two stated releases ran (rounds twenty-eight and twenty-nine): an installer's record of installing the
# library, followed directly by Python's marker at a line's start (blank lines only between, and at most one shell
# command that starts Python: `$ python run.py`, `!python3 x.py`, `C:\> py x.py`), is a terminal's transcript, the
# install and then a fresh process's run, so the release it installed is the one that ran and what the paste stated
# above the record was replaced: only statements from there on count. The records, one class: pip's `Successfully
# installed ... <library>-X` line (the library anywhere in its list), and uv's block, `Installed N packages in ...` then
# one line a package, ` - <name>==old` for a release it removed and ` + <name>==new` for one it installed (sorted by
# name, so the library's `-` line stands before its `+` line; astral-sh/uv#19541). Group 1 (uv's header and the lines
# before the library's `+` line, the removed release's among them) is skipped: statements count from the `+` line. X is
# a whole release (`4.46.3`, never `4.47.0.dev0`). Nothing else orders them: a bare message after the record (a line
# copied from an earlier run), a note between (a notebook's "You must restart the runtime in order to use newly
# installed versions": its kernel keeps the release it imported before the install), IPython's header or `%run` (the
# same kernel), a record below the traceback, a ` + <library>==X` line without uv's header (a diff, a list). Conda's
# transactions are not read (no transcript in the stored threads to test against).
_RUN_COMMAND = r"[ \t]*(?:[^\n]*[$#>%][ \t]*)?!?(?:python[0-9.]*|py)(?:\.exe)?(?![^ \t\n])[^\n]*\n(?:[ \t]*\n)*"
_WHOLE_RELEASE = r"(?=[0-9]+\.[0-9]+\.[0-9]+(?![^ \t\n,]))"
_UV_LINE = r"[ \t]*[-+~][ \t]+[^ \t\n]+==[^\n]*\n"  # one package's line of uv's block
RAN_AFTER = (r"(?<![^\n])(?:[ \t]*Successfully installed (?:[^ \t\n]+[ \t]+)*?{name}-" + _WHOLE_RELEASE + r"[^\n]*\n"
             r"|([ \t]*Installed [0-9]+ packages? in [^\n]*\n(?:" + _UV_LINE + r")*?)[ \t]*\+[ \t]+{name}=="
             + _WHOLE_RELEASE + r"[^\n]*\n(?:[ \t]*[-+~][ \t]+(?!{name}==)[^ \t\n]+==[^\n]*\n)*)"
             r"(?:[ \t]*\n)*(?:" + _RUN_COMMAND + r")?[ \t]*" + _TRACEBACK_WORDS + r":[ \t]*(?![^\n])")
# What an installer's transcript says it replaced or uninstalled is not a release that ran (round thirty): pip's
# `    Found existing installation: <library> 4.40.0` line, under `Attempting uninstall: <library>` and above
# `Uninstalling <library>-4.40.0:` / `Successfully uninstalled <library>-4.40.0` (pypa/pipenv#5953,
# Rubiksman78/MonikA.I#75), and a conda transaction's line before its arrow (`STATED`'s first
# form). A statement inside states no release and no number inside is held beside a stated one (`BESIDE_NUMBER`).
# The arrow counts only when a release and its build string follow it: prose's `4.46.0 --> 4.57.0` names two.
_PACKAGE = r"[A-Za-z0-9_.]+(?:-[A-Za-z_][A-Za-z0-9_.]*)*"  # a distribution's name: never a part that starts a release
REPLACED = (r"(?<![^\n])[ \t]*Found[ \t]+existing[ \t]+installation:[^\n]*"
            r"|(?<![^\n])[^\n]*?[ \t]-->(?=[ \t]+(?:[^ \t\n:]+::)?(?:" + _PACKAGE + "-)?"
            + _RELEASE + _CONDA_BUILD + ")")
# A line that states a release and says that something works, worked or was fixed there ("<library> 4.57.1 works,
# mine is older", "upgrading to <library> 4.57.1 fixes it") compares releases: a reader cannot tell which one is
# installed, and the one named is often the one that did not raise. With no other release
# number on it (a line naming two is held to both: `RELEASE_NUMBER`), its statements state no release
# (`TOLD_WORKING`, looked for on the statement's line): the entry asks for the release instead. Only
# ASCII letters, either case of the first (no inline flags: both matchers read it).
_TOLD_WORDS = r"(?:[Ww]ork(?:s|ed|ing)?|[Ff]ix(?:es|ed)?|[Ss]olve[sd]?|[Rr]esolve[sd]?)(?![A-Za-z])"
TOLD_WORKING = r"(?<![A-Za-z])" + _TOLD_WORDS
# Said the other way round ("doesn't work on <library> 4.45", "still not fixed with ...", "stopped working after the
# upgrade to ...", "never worked"): the release named is the one that raised, and is stated (`TOLD_NOT`: a negation,
# at most one word, then the word `TOLD_WORKING` looks for). Nothing the user wrote is dropped.
TOLD_NOT = (r"(?:n't|(?<![A-Za-z])(?:[Nn]ot|[Nn]ever|[Nn]o[ \t]+longer|[Ss]topped))[ \t]+(?:[A-Za-z]+[ \t]+)?"
            + _TOLD_WORDS)
# The same said on the next line, as a reply or a sentence goes on (`<library>==4.57.1⏎fixed it for me`, `pip install
# <library>==4.57.1⏎and it works now`): a line that starts with the word (after `and`, `it`, `this`, `that`, `which` or
# `now`), names no release and negates nothing (`TOLD_NEXT`). A line that says it later (`Traceback below; the model
# works on CPU`) or is another item of a template (`- Platform: Linux (... works)`) says it of something else.
TOLD_NEXT = r"^[ \t]*(?:(?:[Aa]nd|[Ii]t|[Tt]his|[Tt]hat|[Ww]hich|[Nn]ow)[ \t]+){0,2}" + _TOLD_WORDS
# A release named as one to get, one required, or one of the library's history ("Please upgrade to <library> 4.57.1 or
# later", "this model requires <library> 4.57.1", "will be removed in <library> 4.57.1", "saved with <library> 4.57.1")
# is not the release the paste ran (advice to upgrade even says the installed one is older): its statement states
# none, unless its line says it does not work there (`TOLD_NOT`: "doesn't work on <library> 4.57.1 or later").
# `TOLD_OTHER_BEFORE`: the words that end just before the library's name (a blank and a backtick between), read in
# the `TOLD_WINDOW` characters before it on its line (advice among them, `_ADVICE`); `TOLD_OTHER_AFTER`: what starts
# just after the release, read in as many after it. "I upgraded to ...", "after upgrading to ..." and "since I'm on
# ..." still state it.
TOLD_WINDOW = 64
# Advice names a release to get ("Please use <library> 4.57.1", "you should install ...", "try pinning ...", "we
# recommend ...", "I'd suggest going back to ..."): a word of advice, then at most a few words of getting it. Round
# fourteen's strict xfail, closed in session 52; "I use", "tried", `pip install` still state the release.
_ADVICE = (r"(?:[Pp]lease|[Ss]hould|[Mm]ust|[Tt]ry|[Rr]ecommend(?:s|ed)?|[Ss]uggest(?:s|ed)?|[Aa]dvise[sd]?)"
           r"(?:[ \t]+(?:to|you|we|using|use|install(?:ing)?|pin(?:ning)?|get(?:ting)?|go(?:ing)?|back|stick(?:ing)?"
           r"|with|revert(?:ing)?|downgrad(?:e|ing)|upgrad(?:e|ing)|switch(?:ing)?)){0,4}")
# An installer's words for a requirement it could not meet, or only asks for (round twenty-five): pip's `No matching
# distribution found for <library>==4.56.0` and `Could not find a version that satisfies the requirement
# <library>==...`, its resolver's `The user requested <library>==...`, uv's `Because there is no version of
# <library>==...` and `... depends on <library>==...` name the release asked for, which the install did not get: the
# one that ran is another.
_INSTALLER_WANTED = (r"(?:[Ff]ound[ \t]+for|[Ss]atisf(?:y|ies)[ \t]+the[ \t]+requirement|[Nn]o[ \t]+versions?[ \t]+of"
                     r"|[Dd]epends?[ \t]+on|[Rr]equested)")
TOLD_OTHER_BEFORE = (r"(?<![A-Za-z])(?:[Rr]equires?|[Rr]equired|[Rr]equiring|[Nn]eeds?|[Nn]eeded"
                     r"|(?:[Uu]pgrade|[Uu]pdate|[Dd]owngrade|[Ss]witch|[Mm]igrate)[ \t]+to"
                     r"|(?:[Rr]emoved|[Dd]eprecated|[Aa]dded|[Ii]ntroduced|[Cc]hanged|[Rr]eleased)[ \t]+in"
                     r"|[Ss]ince|[Uu]ntil|[Ss]tarting[ \t]+(?:with|from)|[Aa]s[ \t]+of|[Aa]t[ \t]+least"
                     r"|(?:[Nn]ewer|[Oo]lder|[Ll]ater|[Ee]arlier|[Hh]igher|[Ll]ower)[ \t]+than"
                     r"|(?:[Ss]aved|[Tt]rained|[Cc]reated|[Ee]xported|[Ww]ritten)[ \t]+(?:with|for|by|using)"
                     r"|(?:[Rr]elease[ \t]+[Nn]otes|[Cc]hange[ \t]?[Ll]og|[Mm]igration[ \t]+[Gg]uide|[Dd]ocs"
                     r"|[Dd]ocumentation)[ \t]+(?:of|for|in|to)"
                     r"|" + _INSTALLER_WANTED + r"|" + _ADVICE + ")"
                     r"[ \t]+`?$")
TOLD_OTHER_AFTER = (r"^`?(?:\+|[ \t]*,?[ \t]+(?:or|and)[ \t]+(?:later|newer|above|higher|greater|up)(?![A-Za-z])"
                    r"|[ \t]+will(?![A-Za-z])"
                    r"|[ \t]+(?:[Rr]elease[ \t]+[Nn]otes|[Cc]hange[ \t]?[Ll]og|[Mm]igration[ \t]+[Gg]uide|[Dd]ocs"
                    r"|[Dd]ocumentation)(?![A-Za-z]))")
# A release's documents ("the <library> 4.56.0 release notes say", "the changelog of <library> 4.56.0") are its
# history read, not the release installed (round twenty-four): in both lists above.
# A statement after a comment's marker is not in effect: a requirements file's `# <library>==4.56.0`, a Dockerfile's
# `# RUN pip install ...`, a notebook's `#!pip install ...`, a trailing `  # <library>==4.56.0`, a Markdown heading
# (round twenty-four). `COMMENT`: a `#` (or `//`) at the line's start, or after a blank and before a blank, a `!`, a
# `#` or the line's end (an issue's `#123`, a URL's `//` are no comment); found once per line, the first on it.
COMMENT = r"^[ \t]*(?:#|//)|[ \t](?:#+|//)(?=[ \t!]|$)"
# A list an installer printed of the packages it could not find, one per line under its own header (conda's
# `PackagesNotFoundError: The following packages are not available from current channels:`, then a blank line and
# `  - <library>==4.56.0`): a release listed there is one asked for, not the one installed, though its line holds no
# word of the failure (round twenty-five's strict xfail, closed in round twenty-seven). `LIST_ITEM`: a line that is
# such an item; `NOT_FOUND_HEADER`: the header's words, read on the first line above the list that is neither an
# item nor blank.
LIST_ITEM = r"^[ \t]*[-*][ \t]"
NOT_FOUND_HEADER = r"PackagesNotFoundError|[Tt]he following packages are (?:not available|missing)"
# A shell's prompt shows the environment it runs in, named as its user chose (`(<library> 4.57.1) u@host:~$ python
# run.py`, `(<library> 4.57.1) C:\Users\u> python run.py`): a name says nothing of what is installed in it, so a
# statement inside the parentheses that open a prompt's line states no release (round twenty-one; a strict xfail of
# round fourteen's). `PROMPT_OPEN`: the line before the name, from its start (`TOLD_WINDOW` characters at most), opens
# them; `PROMPT_CLOSE`: after the release, they close, and a prompt follows (a token that ends with `$`, `#`, `%` or
# `>`, or a bare `$`, `#` or `%`), then a blank or the line's end.
PROMPT_OPEN = r"^[ \t]*\([^()\n]*$"
PROMPT_CLOSE = r"^[^()\n]*\)[ \t]+(?:PS[ \t]+)?(?:[^ \t\n]+[$#%>]|[$#%])(?:[ \t]|$)"
# A statement inside a question ("Does <library> 4.57.1 not work with this model?") asks, it does not tell: the
# reader cannot say the release is installed, and `TOLD_NOT` would read the negation as the release that raised. The
# sentence a statement is in ends at the first `SENTENCE_END` after it on its line (a full stop, `!` or `?` before a
# blank or the line's end: not the dots of a release number); one that ends with `?` states no release.
SENTENCE_END = r"[.!?](?=[ \t]|$)"
# A line that states the library's release and names others ("worked with <library> 4.57.1, fails after
# downgrading to 4.46.0", "upgraded <library> from 4.38 to 4.49", "<library> 4.57.1 → 4.46.0") does not say which
# one raised: every release number on it (`RELEASE_NUMBER`, group 1; `v4.46.0` too, never a part of a longer
# word or number: `python3.10`, `4.46.0.dev0`) is held to the entry, as the stated ones are; so is every release
# number in the paste of a stated release's major version ("With 4.46.0 it fails" on another line). A number of
# another package read so (`<runtime> 2.1.0` on the line) only makes the release less certain, never confirms.
RELEASE_NUMBER = r"(?<![0-9A-Za-z_.])v?([0-9]+\.[0-9]+(?:\.[0-9]+)?)(?![0-9A-Za-z_]|\.[0-9A-Za-z_])"
# The numbers held to beside the stated releases (`BESIDE_NUMBER`) are those, but a number joined to a name by `-` or
# `==`: that distribution's release (an installer's `tokenizers-0.21.1`, uv's `+ tqdm==4.67.1`, a freeze's
# `numpy==2.1.0`, `Llama-3.1`), never the library's beside its own, whose joined statements are stated already (round
# twenty-nine). A line's count of numbers (`RELEASE_NUMBER`: "a line naming two") still counts them.
BESIDE_NUMBER = r"(?<![A-Za-z0-9_]-)(?<![A-Za-z0-9_]==)" + RELEASE_NUMBER

# -- typed placeholders (what an entry may declare of a placeholder's value) ---------------------

TYPES: dict[str, str | None] = {
    "any": None,  # whatever the text holds (the default)
    "int": r"^-?[0-9]+$",
    # What `len()` printed: never negative (the default of a placeholder whose expression calls it, `COUNT`).
    "count": r"^[0-9]+$",
    "name": r"^[A-Za-z_][A-Za-z0-9_]*$",
    # A class (or a function) named as Python names it: `DynamicCache`, `LlavaLlamaForCausalLM.forward`.
    "class": r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_<>][A-Za-z0-9_<>]*)*$",
    # A class of the user's code: a `class` whose first part the library does not define (see
    # `library_classes`); a value the library defines does not stop the match, it withholds the
    # message's words as evidence (the same words then say the other direction: code newer than
    # the installed library calls the library's own class).
    "user": r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_<>][A-Za-z0-9_<>]*)*$",
    # A class the library defines: a `class` (never one of Python's own types unless allowed) whose first
    # part the library defines; a class it does not define (the user's own, a remote-code model) does not
    # stop the match, it withholds the message's words as evidence (the same words then come from another
    # cause: the library reading what its own classes have from a class of another kind).
    "library-class": r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_<>][A-Za-z0-9_<>]*)*$",
    # A module of the documented library: its import name, or a dotted name below it.
    "library": r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$",
    # Where the module an import found lies, as Python prints it (`(/x/site-packages/<library>/__init__.py)`,
    # `(unknown location)`): a value that is not a file in the library's folder where packages are installed
    # (INSTALL_ROOT; a relative path too) withholds the entry: the import found a folder named like the library
    # (a project's, a copy's) or a namespace package without its files, not the installed library. Only
    # `unknown location` and a whole path (no blank: a wrapped one cannot tell) are judged.
    "location": None,
}
# The type a placeholder has when its entry declares none, by its expression (the names authors
# give the placeholders of `also_seen_as` wordings: `{cls}` a class, `{module}` where an import failed).
DEFAULT_TYPES = {"cls": "class", "module": "library", "path": "location"}
# A placeholder whose expression is a call of `len` (`{len(caches)}`, `{len(self.layers)}`) is typed `count` unless
# its entry declares a type: a negative value (`Expected 1 or 2 arguments, got -2`) is no message the raise prints.
COUNT = r"^len\(.+\)$"
# A value that is a placeholder as an f-string writes it (`{len(self)}`, `{layer_idx}`) is read from the raise's own
# source line in a traceback (`raise KeyError(f"Cache only has {len(self)} layers ...")`, corpus r115), or a
# release's whose expression differs: no value, never held to a type or a relation.
SOURCE_VALUE = r"^\{[A-Za-z_][A-Za-z0-9_.()\[\]]*\}$"
# Python's own types: a `class` (or `library-class`) placeholder never stands for one unless its entry allows it.
BUILTIN_TYPES = ("NoneType", "tuple", "list", "dict", "str", "int", "float", "bool", "bytes", "bytearray",
                 "set", "frozenset", "complex", "object", "type", "function", "method", "module", "range",
                 "generator", "coroutine", "builtin_function_or_method", "method-wrapper", "property",
                 "staticmethod", "classmethod", "slice", "ellipsis", "NotImplementedType")
RELATIONS = ("<", "<=", ">", ">=", "==", "!=")

# -- evidence (what ties a matched message to the entry's cause) --------------------------------

WORDS = "words"  # the message is the library's own, or names what the entry is about
FRAME_EVIDENCE = "frame"  # a traceback frame in the documented function or module
CODE = "code"  # the failing line of the user's code uses the documented name
RECOGNISED = "recognised"  # the paste shows one of the entry's `recognised_by` texts
RELEASE = "release"  # the release lies in the matched wording's range (never enough alone)
VALUE = "value"  # a placeholder's value the entry declares only its cause prints the words with (`ties`)
CONFIRMING = (WORDS, FRAME_EVIDENCE, CODE, RECOGNISED, VALUE)


def compiled(pattern: str, multiline: bool = False) -> re.Pattern[str]:
    return re.compile(pattern, re.MULTILINE if multiline else 0)


# What would confirm a candidate, worded for where the answer is shown (`_match.Hint`, issue 19): `paste` the page's
# box, `cli` `errorkb lookup` (both read what the user pasted), `hook` the traceback hook and the pytest hint, which
# hold the whole traceback and read the installed release themselves: they never ask for a paste. `{name}`: a
# parameter the hint carries (already in the words a reader reads: code spans, places). None: not said at that front
# (no front drops one yet; a front's printer skips it).
_EARLIER = ("found earlier in the paste, not in the error it ended with: paste only the failing traceback to "
            "check it")
_CHECKED_HEAD = ("found inside a failed check's message (an `assert` or a test's comparison quotes these words): the "
                 "check raised the error, not the library; ")
_ANY = "the message alone is printed by many unrelated errors"
HINT_WORDS: dict[str, dict[str, str | None]] = {
    "traceback-frame": {"paste": "paste the whole traceback: a frame in {where} confirms it",
                        "cli": "paste the whole traceback: a frame in {where} confirms it",
                        "hook": "the traceback shows no frame in {where}, where this error is raised"},
    "traceback-line": {"paste": "paste the whole traceback: your failing line using {code} confirms it",
                       "cli": "paste the whole traceback: your failing line using {code} confirms it",
                       "hook": "your failing line using {code} confirms it; the traceback shows none"},
    "recognised-line": {"paste": "a line like {line} in the paste confirms it",
                        "cli": "a line like {line} in the text you give confirms it",
                        "hook": "a line like {line} printed before the error (in your output, not the traceback) "
                                "confirms it"},
    "release": {"paste": "which {library} release? This wording comes from {claim}; another release rules it out",
                "cli": "which {library} release? This wording comes from {claim}; another release rules it out "
                       "(`errorkb lookup --release` gives it)",
                "hook": "the installed {library} release could not be read: this wording comes from {claim}; "
                        "another release rules it out"},
    "traceback-any": {"paste": "paste the whole traceback: " + _ANY, "cli": "paste the whole traceback: " + _ANY,
                      "hook": _ANY + ": compare the cause `errorkb show {id}` describes with your code"},
    "earlier": {"paste": _EARLIER, "cli": _EARLIER,
                "hook": "found in an earlier exception of the chain, not in the error raised: the entry may be about "
                        "that earlier error"},
    "checked": {"paste": _CHECKED_HEAD + "paste the traceback of the error the check compared to confirm it",
                "cli": _CHECKED_HEAD + "paste the traceback of the error the check compared to confirm it",
                "hook": _CHECKED_HEAD + "the traceback of the error the check compared confirms it"},
}
FRONTS = ("paste", "cli", "hook")


def rules_document(generic: list[str] | tuple[str, ...]) -> dict[str, Any]:
    """The rules as the index carries them to the page: every constant, every pattern's source,
    the placeholder types and the wordings too generic to identify an error."""
    return {
        "version": RULES_VERSION, "cap": CAP, "chain": CHAIN, "relays": RELAYS, "whitespace": WHITESPACE,
        "max_path": MAX_PATH,
        "tail_min": TAIL_MIN, "tail_after": TAIL_AFTER, "head_min": HEAD_MIN, "head_close": HEAD_CLOSE,
        "head_word_min": HEAD_WORD_MIN, "head_word_rest": HEAD_WORD_REST,
        "written_min": WRITTEN_MIN,
        "trailing_punctuation": TRAILING_PUNCTUATION, "diff_kept": DIFF_KEPT,
        "frame_wraps": FRAME_WRAPS, "json_depth": JSON_DEPTH, "tag_max": TAG_MAX, "tags_max": TAGS_MAX,
        "told_window": TOLD_WINDOW,
        "traceback_text": TRACEBACK_TEXT,
        "handling_text": HANDLING_TEXT,
        "html_entities": HTML_ENTITIES, "json_escapes": JSON_ESCAPES,
        "patterns": {"ANSI": ANSI, "INVISIBLE": INVISIBLE, "HTML_ENTITY": HTML_ENTITY,
                     "ESCAPED_TRACEBACK": ESCAPED_TRACEBACK, "REPR_TRACEBACK": REPR_TRACEBACK,
                     "LINE_RECORD": LINE_RECORD,
                     "JSON_ESCAPE": JSON_ESCAPE,
                     "PROCESS": PROCESS, "TAG_CHARACTER": TAG_CHARACTER, "PREFIX": PREFIX, "LOG_RECORD": LOG_RECORD,
                     "LISTED_LEAD": LISTED_LEAD,
                     "PRINTED_NAME": PRINTED_NAME,
                     "GROUP_MARGIN": GROUP_MARGIN,
                     "RICH_TOP": RICH_TOP, "RICH_BOTTOM": RICH_BOTTOM,
                     "RICH_FOLD": RICH_FOLD, "RICH_WRAP": RICH_WRAP, "RICH_EDGE": RICH_EDGE, "FRAME_WRAP": FRAME_WRAP,
                     "FRAME_CUT_BLANK": FRAME_CUT_BLANK, "EXCEPTION_WRAP_END": EXCEPTION_WRAP_END,
                     "CUT_BLANK_END": CUT_BLANK_END, "PADDED_END": PADDED_END,
                     "FRAME_NAME_WRAP": FRAME_NAME_WRAP, "LINK": LINK, "QUOTED": QUOTED,
                     "QUOTE_MARK": QUOTE_MARK, "DIFF_HUNK": DIFF_HUNK, "DIFF_CHANGE": DIFF_CHANGE,
                     "DOCTEST_EXPECTED": DOCTEST_EXPECTED,
                     "LINE_END": LINE_END, "SUFFIX": SUFFIX, "EXCEPTION_LINE": EXCEPTION_LINE,
                     "INLINE_EXCEPTION": INLINE_EXCEPTION, "STOP_LINE": STOP_LINE, "TRACEBACK": TRACEBACK,
                     "TRACEBACK_END": TRACEBACK_END, "FATAL_NAME": FATAL_NAME, "CHECK_NAME": CHECK_NAME,
                     "CHECK_LINE": CHECK_LINE, "CHAINED": CHAINED,
                     "RERAISE": RERAISE, "WARNING_HEADER": WARNING_HEADER,
                     "FRAME": FRAME, "FRAME_LINE": FRAME_LINE, "STACK_LINE": STACK_LINE, "INSTALL_ROOT": INSTALL_ROOT,
                     "OWN_RAISE": OWN_RAISE, "OWN_FILE": OWN_FILE, "RELAYED": RELAYED,
                     "NAMED_STRING": NAMED_STRING, "STRING_PREFIX": STRING_PREFIX,
                     "CODE_LINE": CODE_LINE,
                     "ARROW_LINE": ARROW_LINE,
                     "PYTEST_DEF": PYTEST_DEF, "PYTEST_FAILING": PYTEST_FAILING,
                     "MARKERS": MARKERS, "PLAIN_RELEASE": PLAIN_RELEASE, "CLAUSE": CLAUSE, "STATED": STATED,
                     "RAN_AFTER": RAN_AFTER, "REPLACED": REPLACED,
                     "TOLD_WORKING": TOLD_WORKING, "TOLD_NOT": TOLD_NOT, "TOLD_NEXT": TOLD_NEXT,
                     "SENTENCE_END": SENTENCE_END, "TOLD_OTHER_BEFORE": TOLD_OTHER_BEFORE,
                     "TOLD_OTHER_AFTER": TOLD_OTHER_AFTER,
                     "PROMPT_OPEN": PROMPT_OPEN, "PROMPT_CLOSE": PROMPT_CLOSE, "COMMENT": COMMENT,
                     "LIST_ITEM": LIST_ITEM, "NOT_FOUND_HEADER": NOT_FOUND_HEADER,
                     "RELEASE_NUMBER": RELEASE_NUMBER, "BESIDE_NUMBER": BESIDE_NUMBER, "NAME": NAME,
                     "RETOLD_NAME": RETOLD_NAME,
                     "RETOLD_GONE": RETOLD_GONE, "COUNT": COUNT, "SOURCE_VALUE": SOURCE_VALUE},
        "name_chars": NAME_CHARS, "dotted_name_chars": DOTTED_NAME_CHARS, "lower_first": LOWER_FIRST,
        "on_class": {"instance": ON_INSTANCE, "prefix": ON_CLASS_PREFIX, "class": ON_CLASS},
        "types": TYPES, "default_types": DEFAULT_TYPES, "builtin_types": list(BUILTIN_TYPES),
        "relations": list(RELATIONS), "confirming": list(CONFIRMING),
        "generic": list(generic), "hint_words": HINT_WORDS,
    }
