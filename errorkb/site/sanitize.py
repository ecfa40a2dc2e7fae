"""The HTML of a generated page, passed through a sanitiser made for the job (Ammonia, via nh3).

Entries arrive as pull requests from strangers, and `inert` (see `errorkb.site.inert`) keeps
their Markdown from producing markup. This is the second line, on the HTML the Markdown
engine actually produced: whatever an engine, an extension or a report field lets through,
only the elements and attributes these pages are built from survive: no script, no event
handler, no `style` but a table cell's alignment, no URL but http(s), mailto and relative
ones, no image from another host. Text is never dropped: a tag that is not allowed is removed
and its text kept (the content of `script` and `style` goes with them).

The release pictures (`errorkb.site.picture`) are inline SVG, so a few SVG elements are allowed:
rectangles, text, groups and `<title>` (a cell's hover text), with their geometry and the
attributes that make the picture an image to a screen reader. Nothing that can reference,
load, animate or script anything is (`use`, `image`, `foreignObject`, `animate`, `set`, `style`,
`href` on anything but `a`, whose URLs are filtered as everywhere): Ammonia also checks that an
SVG element sits where the HTML parser puts SVG, so no namespace confusion smuggles markup in.
`wbr` marks where a long identifier may wrap (`errorkb.site.inert.code`).
"""

from __future__ import annotations

import re

import nh3

# Everything Python-Markdown, pymdownx (highlight, superfences, tabbed, details), admonitions,
# tables and the errorkb templates put into a page's content.
TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "label", "li", "mark",
    "ol", "p", "pre", "s", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td",
    "tfoot", "th", "thead", "tr", "ul", "wbr",
    "svg", "g", "rect", "text", "title",  # the release pictures
}
ATTRIBUTES = {
    "*": {"class", "id", "title"},
    "a": {"href", "name"},
    "details": {"open"},
    "div": {"data-index", "data-tabs"},  # the paste box's index; content tabs' numbering
    "img": {"src", "alt", "width", "height"},
    "input": {"type", "name", "checked"},  # content tabs are radio buttons
    "label": {"for"},
    "ol": {"start"},
    "span": {"aria-hidden"},
    "svg": {"viewBox", "width", "height", "role", "aria-label", "preserveAspectRatio", "focusable"},
    "rect": {"x", "y", "width", "height"},
    "text": {"x", "y", "text-anchor"},
    "td": {"style", "colspan", "rowspan"},
    "th": {"style", "colspan", "rowspan"},
}
URL_SCHEMES = {"http", "https", "mailto"}
STYLES = {"text-align"}  # tables' column alignment
_URL_STRIPPED = "".join(map(chr, range(0x21)))  # what a URL parser drops at either end: C0 controls, space
_URL_IGNORED = re.compile("[\t\n\r]")  # what it drops anywhere


def sanitize(html: str) -> str:
    """`html` with only the elements, attributes and URLs listed above."""
    clean: str = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel=None,
                           filter_style_properties=STYLES, attribute_filter=_attribute)
    return clean


def _attribute(tag: str, name: str, value: str) -> str | None:
    """Images only from the site itself: a reader's browser talks to nobody else."""
    if tag == "img" and name == "src" and elsewhere(value):
        return None
    return value


def elsewhere(address: str) -> bool:
    """Whether a browser would fetch `address` from another host, read as its URL parser reads it:
    leading and trailing controls and spaces dropped, every tab and newline dropped, a backslash
    taken for a slash (`\\\\host/x`, `/\\host/x` and `/<tab>/host/x` are all `//host/x`); then
    any `//`, or a scheme, is another host's."""
    squeezed = _URL_IGNORED.sub("", address.strip(_URL_STRIPPED)).replace("\\", "/")
    return "//" in squeezed or ":" in squeezed.split("/", 1)[0]
