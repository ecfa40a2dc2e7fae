"""Entry prose is Markdown, but nothing in an entry may run in a reader's browser.

`inert` rewrites an author's Markdown so that it can only produce text, formatting, code and
ordinary links: raw HTML and entities show as written, attribute lists (`{: onclick=...}`,
which the site's `attr_list` extension would honour) show as text, and links to anything but
http(s), mailto or a relative address are not links. Code spans and fences are left exactly
as written: Markdown escapes their content itself.

Deciding what is code errs one way only: a piece counts as code when Markdown will surely
treat it as code (equal backtick runs within one paragraph; a fence opening and closing at
line starts). Anything else is escaped, which is safe even when it was code after all.
"""

from __future__ import annotations

import re

_FENCE = r"^[ \t]*(?P<fence>`{3,}|~{3,})[^\n]*\n(?:.*?\n)??[ \t]*(?P=fence)[ \t]*$"
_SPAN = r"(?<![\\`])(?P<ticks>`+)(?!`)(?:[^`\n]|\n(?![ \t]*\n))+?(?<!`)(?P=ticks)(?!`)"
_CODE = re.compile(f"(?P<code>{_FENCE}|{_SPAN})", re.MULTILINE | re.DOTALL)

_INLINE_LINK = re.compile(r"\]\((?P<dest>[^)]*)")
_REFERENCE = re.compile(r"^(?P<indent>[ ]{0,3})\[(?P<label>[^\]\n]+)\]:(?P<dest>[^\n]*)$", re.MULTILINE)
_SAFE_SCHEMES = {"http", "https", "mailto"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")
_INVISIBLE = re.compile(r"[\x00-\x20\x7f]+")


def inert(markdown: str) -> str:
    """`markdown` with everything outside code made unable to inject markup or script."""
    out, last = [], 0
    for code in _CODE.finditer(markdown):
        out.append(_text(markdown[last:code.start()]))
        out.append(code.group())
        last = code.end()
    out.append(_text(markdown[last:]))
    return "".join(out)


def _text(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace("{", "\\{")
    text = _INLINE_LINK.sub(lambda m: ("]\\(" if _unsafe(m["dest"]) else "](") + m["dest"], text)
    return _REFERENCE.sub(lambda m: (f"{m['indent']}\\[{m['label']}]:{m['dest']}" if _unsafe(m["dest"])
                                     else m.group()), text)


def _unsafe(destination: str) -> bool:
    """A link target with a scheme other than http(s)/mailto (javascript:, data:, ...)."""
    squeezed = _INVISIBLE.sub("", destination.replace("&amp;", "&")).lstrip("<")
    scheme = _SCHEME.match(squeezed)
    return scheme is not None and scheme.group(1).lower() not in _SAFE_SCHEMES


def one_line(text: str) -> str:
    """A title for a heading or a table cell: one line, no table-breaking pipes."""
    return " ".join(text.split()).replace("|", "\\|")
