"""Every value a template writes, escaped for the place it is written: safe in any engine.

The templates write Markdown with some HTML in it, and `errorkb render --out` hands that
Markdown to engines errorkb knows nothing of, without the site's sanitiser. So the escaping is
done where the text is written, by the context it lands in, and the Jinja environment
(`render._environment`) applies `text` to every value no filter marked as escaped already:

- `text`: a plain value (a name, a release range, a date, a report's field) as text in Markdown
  *and* in HTML, attributes included: HTML's characters as references, Markdown's punctuation as
  numeric character references (which no engine reads as syntax and every browser shows as the
  character; an emoji shortcode's opening colon too), line breaks as spaces, control and
  bidirectional characters as `\\uXXXX`, a leading character that would start a block escaped,
  and leading whitespace as one `&#32;` (a separator the template meant, never an indent that
  starts a code block).
- `code`: a value as inline code, a `<code>` element whose text is character references
  (`errorkb.site.inert.code`); never backticks around a value, which would show the references.
- `url`: a link destination, percent-encoded, `&` as `&amp;` (no reference spells a scheme); a scheme
  other than http(s) or mailto links nowhere.
- `attribute`: a report's free text in an HTML attribute, on one line, written as `text` writes it:
  safe wherever the element stands (inline HTML is read as Markdown too).
- `front_matter`: a YAML value that Material prints unescaped (`title`, `description`): HTML-
  escaped in the file itself, so the plugin and any engine read the same safe value, and written
  as a JSON string whose non-printing characters are `\\u` escapes.
- `fragment`: an HTML block the templates build, passed through the site's sanitiser as it is
  written (`errorkb.site.sanitize`), so the Markdown on disk already holds only what the pages
  are built from.

Prose the author wrote as Markdown goes through `errorkb.site.inert` instead.
"""

from __future__ import annotations

import html
import json
import re
import urllib.parse

from markupsafe import Markup

from errorkb.core.prose import visible
from errorkb.site.inert import SHORTCODE
from errorkb.site.inert import code as inline_code
from errorkb.site.sanitize import sanitize

# Markdown punctuation any engine might read as syntax in the middle of a line (code, emphasis,
# links, attribute lists, tables, strikethrough, marks, math, headings' closing #), and HTML's.
_TEXT_CHARS = str.maketrans({ch: f"&#{ord(ch)};" for ch in "\\`*_[]{}|~$^=#<>&\"'"})
_LINE_BREAKS = re.compile(r"\r\n|[\r\n]")
_NOTHING_TO_ESCAPE = re.compile(r"(?:[^\W_]|[.,:;/()%@+·–—-])(?:[^\W_]|[ .,:;/()%@+·–—-])*|")  # no leading space
_BLOCK_START = re.compile(r"^(?:[-+:*]|\d{1,9}[.)])(?=[ \t]|$)")  # a list item or a definition at a line start
_SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_BEFORE_BLANK_LINE = re.compile(r"\n(?=[ \t]*(?:\n|\Z))")
_NOT_PRINTING = re.compile("[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ud800-\udfff\ufeff]")


def text(value: object) -> Markup:
    """A plain value as text, in Markdown and in HTML alike."""
    if isinstance(value, Markup):
        return value
    plain = "" if value is None else str(value)
    if _NOTHING_TO_ESCAPE.fullmatch(plain) and not _BLOCK_START.match(plain) and not SHORTCODE.search(plain):
        return Markup(plain)  # most values: words, numbers, dates, versions
    plain = visible(_LINE_BREAKS.sub(" ", plain))
    lead = "&#32;" if plain[:1].isspace() else ""  # `' ekb-stale'`, `' · '`: one space, never an indent
    out = SHORTCODE.sub("&#58;", plain.lstrip().translate(_TEXT_CHARS))
    start = _BLOCK_START.match(out)
    if start:  # its last character (`-`, or the `.` of `1.`) as a reference
        end = start.end() - 1
        out = out[:end] + f"&#{ord(out[end])};" + out[end + 1:]
    return Markup(lead + out)


def code(value: object) -> Markup:
    return Markup(inline_code(value))


def url(value: object) -> Markup:
    """A link destination: relative, http(s) or mailto, percent-encoded (no `(`, `)`, `<`, space or
    quote survives to end the link early or to become markup); any other scheme links nowhere (`#`).
    `&` is written `&amp;`: the browser, and a CommonMark engine in a Markdown link, read a character
    reference in an address as its character once the scheme was judged (`&#106;avascript:`,
    `javascript&colon;`), in an HTML attribute and a Markdown link alike; `&amp;` reads as `&`."""
    address = str(value)
    scheme = _SCHEME.match(address)
    if scheme and scheme.group(1).lower() not in _SAFE_SCHEMES:
        return Markup("#")
    return Markup(urllib.parse.quote(address, safe="/:?#@!$&*+,;=%~-._").replace("&", "&amp;"))


def attribute(value: object) -> Markup:
    """A value (a report's free text, a template's own `Markup` too) in an HTML attribute: one line, written as
    `text` writes it. HTML-escaping alone was safe in a block of HTML only: in *inline* HTML (a table cell, a
    paragraph, a list item) an engine reads Markdown inside the tag, and a report's `[a](onmouseover=alert(1)//)`
    became a link whose own quoted `href` ended the attribute. In an attribute a character reference reads as the
    character, so the title shows what the report wrote."""
    return text(" ".join(str(value).split()))


def front_matter(value: object) -> Markup:
    """A front-matter value: HTML-escaped (Material prints it as it is), then a JSON string, which
    is valid YAML, with every non-printing character as a `\\u` escape (a raw C1 character makes
    the front matter unreadable; a lone surrogate, which YAML's `"\\ud800"` and JSON's make, cannot be
    written as UTF-8 at all: the page's write raised)."""
    written = json.dumps(html.escape(str(value)), ensure_ascii=False)
    return Markup(_NOT_PRINTING.sub(lambda m: f"\\u{ord(m.group()):04x}", written))


def fragment(markup: object) -> Markup:
    """An HTML block a template built, sanitised where it is written, and kept one block: a blank line in it (a
    value's `\\n\\n`, which the sanitiser keeps) ends an HTML block for a CommonMark engine, and what followed
    was Markdown, its links and images included (the sanitiser reads `&#91;` back as `[`). Each newline before
    a blank line is written `&#10;`, which reads as the same newline."""
    return Markup(_BEFORE_BLANK_LINE.sub("&#10;", sanitize(str(markup))))
