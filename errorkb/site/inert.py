"""Entry prose is Markdown, but nothing in an entry may run in a reader's browser, pose as the
page's own evidence, or cost more to render than its size.

`inert` rewrites an author's Markdown so that any Markdown engine can only turn it into text,
formatting, lists, quotes, code and ordinary links. The rewrite never depends on guessing how a
Markdown engine will read the text, because guesses differ: a code span that a block line (`# `,
`> `, `!!! note`) cuts in two, or a "fence" whose info string holds a backtick, is code to a
regular expression and raw HTML to Python-Markdown. So, in one pass over the text:

- **Fences** (`errorkb.core.prose.split_fences`: opening and closing lines of three or more
  backticks or tildes at a line start, a backtick fence with no backtick in its info string; an
  unclosed fence runs to the end) are written anew: a backtick fence longer than any backtick
  run inside, at the start of the line, with the info string cut to a language Pygments knows.
  The code between stays exactly as written: the engine escapes it.
- **Code spans** become `<code>` elements whose text is written with character references
  (`&lt;`, `&#96;`, ...) and whose line breaks are spaces: HTML that every engine passes
  through and that holds nothing an engine could read as markup, whatever surrounds it. A
  `<wbr>` marks where an identifier may wrap (after a dot, between words an underscore joins),
  so a narrow table column breaks `package.SomeClass.__init__` at its dots, never inside a word.
  Backticks that close no span are escaped (`\\``).
- **Control and bidirectional characters** (which the loader refuses in entries; a report's
  text may hold them) are written as their `\\uXXXX` escapes: shown, never obeyed.
- **Everything else** is text: `&` and `<` become character references, so no tag, comment or
  entity of the author's reaches the page; `{` is escaped, so no attribute list (`{: onclick=...}`,
  `{ .ekb-badge }`) applies.
- **Inline syntaxes of the extensions a Material site commonly adds** (`text_only`): each `$`, an
  emoji shortcode's opening `:` and the bracket of a backslash escape (`\\(`, `\\[`) are character
  references, so no math reaches MathJax (which makes links and styles past any sanitiser) and no
  emoji an image from a CDN; in code spans `$ = ^ + ~` too (marks, insertions, keys).
- **Block starts that belong to the page**, behind any container prefix (`> `, `- `, `1. `): a
  heading (`#`, or a setext underline), an admonition, a collapsible block or a content tab
  (`!!!`, `???`, `===`), a block of pymdownx.blocks (`///`: an admonition, a tab, or with its
  `html` block any element with any attribute), an object mkdocstrings documents in its place
  (`:::`, read from files outside the repository), an abbreviation (`*[word]: title`), a table of
  contents (`[TOC]`) and a fence
  line the rewrite did not accept are written so that they read as their text, for a site that
  enables those extensions too. Prose cannot produce a heading (and so no
  heading id such as the page's `#message`), nor the admonitions and classes the page shows its
  verification results with.
- **Links and images** to anything but http(s), mailto or a relative address are not links:
  their `](` (or, for a reference definition, wherever it stands, their `[`) is escaped. The
  destination is judged after decoding character references and dropping whitespace and
  control characters, wherever it starts (the next line included), so `&#106;avascript:`,
  ` JAVASCRIPT:` and `java\\tscript:` are all caught; a destination whose scheme cannot be told
  within its first `WINDOW` characters is treated as a script link.
- **Images** come from the site itself: an inline image's address is judged where it stands,
  as a browser reads it (`errorkb.site.sanitize.elsewhere`: `\\\\host`, `/\\host` are another
  host). A reference-style image (`![a][r]`, `![r][]`, `![r]`, or an inline one an engine cannot
  read as inline and reads as `![r]`) takes its address from a definition that may stand in
  another field of the page, so no definition may lead to another host: a reference definition
  whose destination is not on the site is not one (its `[` is escaped; it reads as its text).
  Links to other sites are written inline. A footnote's definition (`[^1]: note`) is text too:
  an engine without footnotes reads it as a link definition and shows the note nowhere.
- **Structures that cost more than their size** to render (`errorkb.core.prose`): an engine
  scans on from every `[` to its `]` and from every link's `(` to its `)`, so a `[` that no `]`
  closes in its paragraph, or that lies deeper than `MAX_BRACKET_DEPTH` brackets, is escaped,
  and so is a link's `(` that no `)` closes within `WINDOW` characters; a line nested deeper
  than `MAX_NESTING` lists and quotes has its further markers escaped. The loader refuses
  entries that need most of this (`MAX_BRACKETS`, `MAX_NESTING`); it keeps text no loader
  checked (a report's reason) linear, and escaping what opens nothing changes nothing a reader sees.

The site runs the generated pages through an HTML sanitiser as well (see `errorkb.site.sanitize`);
this module is what keeps `errorkb render`'s plain Markdown safe for any other engine.
"""

from __future__ import annotations

import functools
import html
import re

from errorkb.core.prose import FENCE_OPEN, INDENT_PER_LEVEL, MAX_BRACKET_DEPTH, MAX_NESTING, split_fences, visible
from errorkb.site.sanitize import elsewhere

WINDOW = 512  # characters of a link destination read: past them, it is not a link (nor a script's)
_PARAGRAPH_BREAK = re.compile(r"(\n[ \t]*\n)")
_LINK_OPEN = re.compile(r"\](?P<gap>\s*)\(")
# A reference definition: `[label]:`, anywhere (a container prefix cannot hide it), its destination
# after any whitespace, the next line included.
_REFERENCE = re.compile(r"(?<!\\)\[(?P<label>(?:[^\[\]\\]|\\.)*)\]:(?P<dest>\s*(?:>\s*)*\S*)")
_SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_CONTINUATION = re.compile(r"\n[ \t>]*")
_SCHEME_CHARS = re.compile(r"^[A-Za-z0-9+.-]*$")
_UNDECIDED = re.compile(r"[/\\]*[A-Za-z0-9+.-]*")  # a cut address that may still turn out another host's
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]+")
# Characters written as references inside a code span: HTML's own, and every character an
# engine could read as Markdown syntax between the <code> tags.
# (`$`, `=`, `^`, `+`: math, marks, insertions and keys of the extensions a Material site commonly adds; and an
# emoji shortcode's opening `:`, `SHORTCODE`.)
_CODE_CHARS = str.maketrans({ch: f"&#{ord(ch)};" for ch in "&<>\"'`*_[]{}\\|!~$=^+"})
# A colon that opens an emoji shortcode (`:smile:`, pymdownx.emoji's `:[+\-\w]+:`), but not a reference
# definition's (`[r]:x:`); and a backslash escape that opens or closes math (`\(`, `\)`, `\[`, `\]`), found as
# escapes are read, left to right (`\\(` is an escaped backslash, then a parenthesis).
SHORTCODE = re.compile(r"(?<!\]):(?=[+\-\w]+:)")
_MATH_ESCAPE = re.compile(r"\\[\\()\[\]]")
# A line's container prefix: indentation, list markers and quote markers, each with its space.
_PREFIX = re.compile(r"(?:[ \t]*(?:[-*+]|\d{1,9}[.)]|>)(?=[ \t]|$))*[ \t]*")
_MARKER = re.compile(r"[ \t]*(?P<marker>[-*+>]|\d{1,9}[.)])(?=[ \t]|$)")
_RUN = re.compile(r"`+")
# Where an identifier may wrap: after a dot followed by a name (`package.<wbr>SomeClass.<wbr>__init__`),
# and after an underscore between two letters or digits (`get_<wbr>max_<wbr>length`); never inside a word.
_BREAK = re.compile(r"(?<=\w\.)(?=[A-Za-z_])|(?<=[A-Za-z0-9]_)(?=[A-Za-z0-9])")
_BRACKETS = re.compile(r"\\.|[\[\]]", re.DOTALL)
_PARENS = re.compile(r"\\.|[()]", re.DOTALL)
_QUOTES = re.compile(r"(?:[ \t]*>)*[ \t]*")
_HEADING = re.compile(r"#")
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*$")
# admonitions, collapsible blocks, content tabs; pymdownx.blocks' blocks; mkdocstrings' objects; an abbreviation's
# definition (abbr's `*[word]: title`: gone from the text, and its title on every `word` of the page)
_BLOCK_MARKS = re.compile(r"(?:!!!|\?\?\?|===|///|:::|\*\[)")
_LOOSE_FENCE = re.compile(r"(?:~~~|```)")  # a fence line the rewrite did not accept (behind a prefix)


def inert(markdown: str) -> str:
    """`markdown` rewritten so that it can produce no markup, script, script link or page component."""
    out: list[str] = []
    for block in split_fences(visible(markdown)):
        if not block.fence:
            out.append(_prose("\n".join(block.lines)))
            continue
        if not out:  # a template puts the prose's first line after "- " or "**Trigger.** ", where
            out.append("&nbsp;\n")  # no engine opens a fence: give the fence a block of its own
        out.append(_fence(block.lines[0], block.lines[1:]))
    return "\n".join(out)


# -- fences ------------------------------------------------------------------------------------


def _fence(opening: str, code: list[str]) -> str:
    """The fence written anew: backticks longer than any run inside, info cut to a known language."""
    found = FENCE_OPEN.match(opening)
    info = found["info"] if found else ""
    word = re.match(r"[ \t]*([\w#+-][\w#.+-]*)?", info).group(1) or ""  # type: ignore[union-attr]
    language = word if word.lower() in _languages() else ""
    longest = max((len(run) for line in code for run in re.findall(r"`+", line)), default=0)
    ticks = "`" * max(3, longest + 1)
    return "\n".join([ticks + language, *code, ticks])


@functools.lru_cache(maxsize=1)
def _languages() -> frozenset[str]:
    """Every Pygments lexer alias: a fence's language names one, or the fence has none (an
    info string such as `{.ekb-badge}` or `ekb-badge` would otherwise become a class)."""
    from pygments.lexers import get_all_lexers

    return frozenset(alias.lower() for _, aliases, _, _ in get_all_lexers() for alias in aliases)


# -- prose ---------------------------------------------------------------------------------------


def _prose(text: str) -> str:
    """Text outside fences: code spans as <code>, the rest escaped, script links broken, block
    starts that belong to the page neutralised."""
    parts = _PARAGRAPH_BREAK.split(text)  # paragraphs, with the blank lines between them kept
    text = "".join(part if index % 2 else _paragraph(part) for index, part in enumerate(parts))
    text = _links(text)
    text = _REFERENCE.sub(_reference, text)
    return _blocks(text)


def _links(text: str) -> str:
    """Every `](dest` of a link or image, with the `(` escaped when `dest` is a script URL, when no
    `)` closes it within `WINDOW` characters (an engine would scan on to the paragraph's end), or,
    for an image, when it is not on the site itself (a reader's browser talks to nobody else)."""
    closes = _pairs(text, _PARENS, "(", ")")
    openers = {close: opening for opening, close in _pairs(text, _BRACKETS, "[", "]").items()}
    out: list[str] = []
    last = 0
    for found in _LINK_OPEN.finditer(text):
        start = found.end()
        close = closes.get(start - 1, -1)
        opener = openers.get(found.start(), 0)
        image = opener > 0 and text[opener - 1] == "!" and (opener < 2 or text[opener - 2] != "\\")
        destination = text[start:close]
        unsafe = close < 0 or close - start > WINDOW or _unsafe(destination) or (image and _elsewhere(destination))
        out.append(text[last:found.start()])
        out.append("]" + found["gap"] + ("\\(" if unsafe else "("))
        last = start
    out.append(text[last:])
    return "".join(out)


def _elsewhere(destination: str, cut: bool = False) -> bool:
    """An address on another host, as a browser reads it once character references are decoded
    and invisible characters gone. `cut`: the destination goes on past what was read, so one
    that has not yet shown it stays on the site (a path, past any leading slash) is elsewhere."""
    squeezed = _INVISIBLE.sub("", _decoded(destination)).lstrip("<")
    return elsewhere(squeezed) or (cut and bool(_UNDECIDED.fullmatch(squeezed)))


def _pairs(text: str, tokens: re.Pattern[str], opening: str, closing: str) -> dict[int, int]:
    """Index of each `opening` → index of the `closing` that closes it, nested ones counted as an
    engine counts them, backslash escapes skipped: one pass."""
    closes: dict[int, int] = {}
    open_: list[int] = []
    for found in tokens.finditer(text):
        char = found.group()
        if char == opening:
            open_.append(found.start())
        elif char == closing and open_:
            closes[open_.pop()] = found.start()
    return closes


def _reference(m: re.Match[str]) -> str:
    """A reference definition, with its `[` escaped when its destination is a script URL or on
    another host (an image anywhere on the page may use it), or when it is a footnote's (`[^1]:`):
    an engine without footnotes reads `[^1]: note` as a link to `note`, and the note is on no page."""
    dest = _CONTINUATION.sub("", m["dest"])
    cut = len(dest) > WINDOW
    if m["label"].startswith("^") or _unsafe(dest[:WINDOW], cut) or _elsewhere(dest[:WINDOW], cut):
        return f"\\[{m['label']}]:{m['dest']}"
    return m.group()


def _paragraph(text: str) -> str:
    """One paragraph: backtick runs paired as CommonMark pairs them, within the paragraph; then
    brackets that open nothing, or too deep, escaped."""
    out: list[str] = []
    plain: list[str] = []
    index = 0
    unmatched: set[int] = set()  # run lengths with no closing run further on: none will ever close
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text):
            plain.append(text[index:index + 2])
            index += 2
            continue
        if char != "`":
            plain.append(char)
            index += 1
            continue
        run = _RUN.match(text, index).group()  # type: ignore[union-attr]  # text[index] is a backtick
        closing = None if len(run) in unmatched else re.compile(rf"(?<!`){run}(?!`)").search(text, index + len(run))
        out.append(_escape("".join(plain)))
        plain = []
        if closing is None:
            unmatched.add(len(run))
            out.append("\\`" * len(run))
            index += len(run)
            continue
        out.append(_code(text[index + len(run):closing.start()]))
        index = closing.end()
    out.append(_escape("".join(plain)))
    return _brackets("".join(out))


def _brackets(text: str) -> str:
    """`text` with every `[` that no `]` closes, or that lies deeper than `MAX_BRACKET_DEPTH`
    brackets, escaped; backslash escapes are skipped (code spans are <code> by now: no brackets)."""
    escaped: list[int] = []
    open_: list[int] = []
    for found in _BRACKETS.finditer(text):
        char = found.group()
        if char == "[":
            if len(open_) >= MAX_BRACKET_DEPTH:
                escaped.append(found.start())
            else:
                open_.append(found.start())
        elif char == "]" and open_:
            open_.pop()
    escaped = sorted(escaped + open_)
    if not escaped:
        return text
    pieces, last = [], 0
    for position in escaped:
        pieces += [text[last:position], "\\"]
        last = position
    return "".join(pieces) + text[last:]


def _code(content: str) -> str:
    """A code span's content as a <code> element (line breaks become spaces, as in CommonMark)."""
    content = re.sub(r"[ \t]*\n[ \t]*", " ", content)
    if len(content) > 2 and content[0] == content[-1] == " " and content.strip():
        content = content[1:-1]
    content = content.replace("\\|", "|")  # `|` escaped for a table cell (see one_line) is a `|` in code
    parts = (SHORTCODE.sub("&#58;", part.translate(_CODE_CHARS)) for part in _BREAK.split(content))
    return "<code>" + "<wbr>".join(parts) + "</code>"


def code(text: object) -> str:
    """Any value as inline code, for a template: one line, nothing in it read as markup."""
    return _code(" ".join(str(text).split()))


def _escape(text: str) -> str:
    """Prose text: no tag, entity or attribute list; no math (`$`, `\\(`, `\\[`) and no emoji shortcode, which
    the extensions a Material site commonly adds turn into a script MathJax reads or an image (see `text_only`)."""
    return text_only(text.replace("&", "&amp;").replace("<", "&lt;").replace("{", "\\{"))


def text_only(text: str) -> str:
    """`text` with the characters that open math or an emoji written as character references, which no engine
    reads as syntax and every browser shows as the character: each `$`, each shortcode's opening `:`, and the
    parenthesis or bracket of a backslash escape (`\\(` is `(` to Python-Markdown and CommonMark alike; to
    pymdownx.arithmatex it opens math)."""
    text = _MATH_ESCAPE.sub(lambda found: found.group() if found.group() == "\\\\" else f"&#{ord(found.group()[1])};",
                            text)
    return SHORTCODE.sub("&#58;", text.replace("$", "&#36;"))


# -- block starts --------------------------------------------------------------------------------


def _blocks(text: str) -> str:
    """Each line's block start, behind its container prefix, neutralised when it would open a
    heading, an admonition, a collapsible block, a tab, a table of contents or a fence; and a line
    nested deeper than `MAX_NESTING` flattened to it."""
    lines = text.split("\n")
    previous = ""  # the previous line, past its container prefix
    for number, line in enumerate(lines):
        quotes = _QUOTES.match(line).group()  # type: ignore[union-attr]  # matches the empty string
        body = line[len(quotes):]
        if _UNDERLINE.match(body) and (body[0] == "=" or previous.strip()):
            lines[number] = quotes + _reference_to(body)  # a setext underline; `---` after a blank line is a rule
            previous = body
            continue
        prefix = _PREFIX.match(line).group()  # type: ignore[union-attr]  # matches the empty string
        rest = line[len(prefix):]
        if _HEADING.match(rest):
            rest = "\\" + rest
        elif _BLOCK_MARKS.match(rest) or _LOOSE_FENCE.match(rest):
            rest = _reference_to(rest)
        elif rest.strip() == "[TOC]":
            rest = rest.replace("[", "\\[", 1)
        lines[number] = _flattened(prefix) + rest
        previous = rest
    return "\n".join(lines)


def _reference_to(text: str) -> str:
    """`text` with its first character written as a character reference: the same text to a
    reader, and no syntax to any engine."""
    return f"&#{ord(text[0])};{text[1:]}"


def _flattened(prefix: str) -> str:
    """A container prefix of at most `MAX_NESTING` levels: indentation past it cut, markers past
    it escaped (they read as their text)."""
    indent = len(prefix) - len(prefix.lstrip(" \t"))
    columns = sum(4 if char == "\t" else 1 for char in prefix[:indent])
    if columns // INDENT_PER_LEVEL > MAX_NESTING:
        prefix = " " * (MAX_NESTING * INDENT_PER_LEVEL) + prefix[indent:]
        columns = MAX_NESTING * INDENT_PER_LEVEL
    allowed = MAX_NESTING - columns // INDENT_PER_LEVEL
    out: list[str] = []
    index = 0
    depth = 0
    while found := _MARKER.match(prefix, index):
        depth += 1
        piece = prefix[index:found.end()]
        if depth > allowed:
            start = found.start("marker") - index
            marker = found["marker"]
            piece = piece[:start] + (marker[:-1] + "\\" + marker[-1] if marker[-1] in ".)" else "\\" + marker)
        out.append(piece)
        index = found.end()
    return "".join(out) + prefix[index:]


# -- destinations ----------------------------------------------------------------------------------


def _unsafe(destination: str, cut: bool = False) -> bool:
    """A link target with a scheme other than http(s)/mailto (javascript:, data:, vbscript:, ...),
    judged as a browser would read it: character references decoded, invisible characters gone.
    `cut`: the destination goes on past what was read, so a scheme not yet told apart is unsafe."""
    destination = _decoded(_CONTINUATION.sub("", destination[:WINDOW]))  # the next line's quote markers, too
    squeezed = _INVISIBLE.sub("", re.sub(r"</?code>", "", destination)).lstrip("<")  # a code span, too
    scheme = _SCHEME.match(squeezed)
    if scheme is not None:
        return scheme.group(1).lower() not in _SAFE_SCHEMES
    return cut and bool(_SCHEME_CHARS.match(squeezed))


def _decoded(destination: str) -> str:
    """`destination` with character references decoded until none is left: `&amp;#106;` is
    `&#106;` is `j`; each pass shortens the text or ends."""
    previous = None
    for _ in range(WINDOW):
        if previous == destination:
            break
        previous, destination = destination, html.unescape(destination)
    return destination


def one_line(text: str) -> str:
    """A title for a heading or a table cell: one line, no table-breaking pipes."""
    return " ".join(text.split()).replace("|", "\\|")


def inert_line(text: object) -> str:
    """Any value (a title, a report's free text) as one line of inert Markdown, for a heading, a link's text or
    a table cell: no fence opens within one line, so it never becomes more than one (through `inert`, a title
    `~~~~` became an empty code block under a blank heading, and a reason of ```` ``` ```` ended its table)."""
    return _prose(visible(one_line(str(text))))


def cell(text: object) -> str:
    """Any value (a report's free text, too) for a table cell: one line, and inert."""
    return inert_line(text)
