"""Entry prose is Markdown, but nothing in an entry may run in a reader's browser.

`inert` rewrites an author's Markdown so that any Markdown engine can only turn it into text,
formatting, code and ordinary links. The rewrite never depends on guessing how a Markdown
engine will read the text, because guesses differ: a code span that a block line (`# `, `> `,
`!!! note`) cuts in two, or a "fence" whose info string holds a backtick, is code to a regular
expression and raw HTML to Python-Markdown. So:

- **Code spans** become `<code>` elements whose text is written with character references
  (`&lt;`, `&#96;`, ...) and whose line breaks are spaces: HTML that every engine passes
  through and that holds nothing an engine could read as markup, whatever surrounds it.
  Backticks that close no span are escaped (`\\``).
- **Fences** (opening and closing lines of three or more backticks or tildes, at a line start,
  a backtick fence with no backtick in its info string) are written anew: a backtick fence
  longer than any backtick run inside, at the start of the line, with the info string cut to
  a language name. The code between stays exactly as written: the engine escapes it.
- **Everything else** is text: `&` and `<` become character references, so no tag, comment or
  entity of the author's reaches the page; `{` is escaped, so no attribute list (`{: onclick=...}`)
  applies; a line that would open a fence the rewrite did not accept is escaped.
- **Links and images** to anything but http(s), mailto or a relative address are not links:
  their `](` (or, for a reference definition, their `[`) is escaped. The destination is judged
  after decoding character references and dropping whitespace and control characters, wherever
  the destination starts (the next line included), so `&#106;avascript:`, ` JAVASCRIPT:` and
  `java\\tscript:` are all caught.

The site runs the generated pages through an HTML sanitiser as well (see `errorkb.site.sanitize`);
this module is what keeps `errorkb render`'s plain Markdown safe for any other engine.
"""

from __future__ import annotations

import html
import re

_FENCE_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)$")
_PARAGRAPH_BREAK = re.compile(r"(\n[ \t]*\n)")
_INLINE_LINK = re.compile(r"\](?P<gap>\s*)\((?P<dest>[^)]*)")
# A reference definition: `[label]:` at a line start (the label may span lines), its
# destination after any whitespace, the next line included.
_REFERENCE = re.compile(r"^(?P<indent>[ \t]{0,3})\[(?P<label>(?:[^\[\]\\]|\\.)*)\]:(?P<dest>\s*\S*)", re.MULTILINE)
_LOOSE_TILDES = re.compile(r"^(?P<indent>[ \t]*)~(?=~~)", re.MULTILINE)  # would open a fence
_SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_INVISIBLE = re.compile(r"[\x00-\x20\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]+")
# Characters written as references inside a code span: HTML's own, and every character an
# engine could read as Markdown syntax between the <code> tags.
_CODE_CHARS = {ch: f"&#{ord(ch)};" for ch in "&<>\"'`*_[]{}\\|!~"}


def inert(markdown: str) -> str:
    """`markdown` rewritten so that it can produce no markup, script or script link."""
    lines = markdown.split("\n")
    out: list[str] = []
    text: list[str] = []
    index = 0
    while index < len(lines):
        end = _fence_end(lines, index)
        if end is None:
            text.append(lines[index])
            index += 1
            continue
        if text:
            out.append(_prose("\n".join(text)))
            text = []
        elif not out:  # a template puts the prose's first line after "- " or "**Trigger.** ", where
            out.append("&nbsp;\n")  # no engine opens a fence: give the fence a block of its own
        out.append(_fence(lines[index], lines[index + 1:end]))
        index = end + 1
    if text:
        out.append(_prose("\n".join(text)))
    return "\n".join(out)


# -- fences ------------------------------------------------------------------------------------


def _fence_end(lines: list[str], start: int) -> int | None:
    """Index of the line closing the fence that `lines[start]` opens, or None."""
    opening = _FENCE_OPEN.match(lines[start])
    if opening is None or (opening["fence"][0] == "`" and "`" in opening["info"]):
        return None  # CommonMark: a backtick fence's info string holds no backtick
    closing = re.compile(rf"^[ \t]*{re.escape(opening['fence'][0])}{{{len(opening['fence'])},}}[ \t]*$")
    return next((i for i in range(start + 1, len(lines)) if closing.match(lines[i])), None)


def _fence(opening: str, code: list[str]) -> str:
    """The fence written anew: backticks longer than any run inside, info cut to a language."""
    found = _FENCE_OPEN.match(opening)
    info = found["info"] if found else ""
    language = re.match(r"[ \t{.]*([\w#+-][\w#.+-]*)?", info).group(1) or ""  # type: ignore[union-attr]
    longest = max((len(run) for line in code for run in re.findall(r"`+", line)), default=0)
    ticks = "`" * max(3, longest + 1)
    return "\n".join([ticks + language, *code, ticks])


# -- prose ---------------------------------------------------------------------------------------


def _prose(text: str) -> str:
    """Text outside fences: code spans as <code>, the rest escaped, script links broken."""
    parts = _PARAGRAPH_BREAK.split(text)  # paragraphs, with the blank lines between them kept
    text = "".join(part if index % 2 else _paragraph(part) for index, part in enumerate(parts))
    text = _INLINE_LINK.sub(_inline_link, text)
    text = _REFERENCE.sub(_reference, text)
    return _LOOSE_TILDES.sub(lambda m: f"{m['indent']}&#126;", text)


def _inline_link(m: re.Match[str]) -> str:
    """`](dest` of a link or image, with the `(` escaped when `dest` is a script URL."""
    return "]" + str(m["gap"]) + ("\\(" if _unsafe(m["dest"]) else "(") + str(m["dest"])


def _reference(m: re.Match[str]) -> str:
    """A reference definition, with its `[` escaped when its destination is a script URL."""
    return f"{m['indent']}\\[{m['label']}]:{m['dest']}" if _unsafe(m["dest"]) else m.group()


def _paragraph(text: str) -> str:
    """One paragraph: backtick runs paired as CommonMark pairs them, within the paragraph."""
    out: list[str] = []
    plain: list[str] = []
    index = 0
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
        run = re.match(r"`+", text[index:]).group()  # type: ignore[union-attr]  # text[index] is a backtick
        closing = re.compile(rf"(?<!`){run}(?!`)").search(text, index + len(run))
        out.append(_escape("".join(plain)))
        plain = []
        if closing is None:
            out.append("\\`" * len(run))
            index += len(run)
            continue
        out.append(_code(text[index + len(run):closing.start()]))
        index = closing.end()
    out.append(_escape("".join(plain)))
    return "".join(out)


def _code(content: str) -> str:
    """A code span's content as a <code> element (line breaks become spaces, as in CommonMark)."""
    content = re.sub(r"[ \t]*\n[ \t]*", " ", content)
    if len(content) > 2 and content[0] == content[-1] == " " and content.strip():
        content = content[1:-1]
    content = content.replace("\\|", "|")  # `|` escaped for a table cell (see one_line) is a `|` in code
    return "<code>" + "".join(_CODE_CHARS.get(ch, ch) for ch in content) + "</code>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace("{", "\\{")


def _unsafe(destination: str) -> bool:
    """A link target with a scheme other than http(s)/mailto (javascript:, data:, vbscript:, ...),
    judged as a browser would read it: character references decoded, invisible characters gone."""
    previous = None
    while previous != destination:  # `&amp;#106;` is `&#106;` is `j`
        previous, destination = destination, html.unescape(destination)
    squeezed = _INVISIBLE.sub("", re.sub(r"</?code>", "", destination)).lstrip("<")  # a code span, too
    scheme = _SCHEME.match(squeezed)
    return scheme is not None and scheme.group(1).lower() not in _SAFE_SCHEMES


def one_line(text: str) -> str:
    """A title for a heading or a table cell: one line, no table-breaking pipes."""
    return " ".join(text.split()).replace("|", "\\|")


def cell(text: object) -> str:
    """Any value (a report's free text, too) for a table cell: one line, and inert."""
    return inert(one_line(str(text)))
