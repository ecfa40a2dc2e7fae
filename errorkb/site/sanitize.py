"""The HTML of a generated page, passed through a sanitiser made for the job (Ammonia, via nh3).

Entries arrive as pull requests from strangers, and `inert` (see `errorkb.site.inert`) keeps
their Markdown from producing markup. This is the second line, on the HTML the Markdown
engine actually produced: whatever an engine, an extension or a report field lets through,
only the elements and attributes these pages are built from survive: no script, no event
handler, no `style` but a table cell's alignment, no URL but http(s), mailto and relative
ones, no image from another host. Text is never dropped: a tag that is not allowed is removed
and its text kept (the content of `script` and `style` goes with them).
"""

from __future__ import annotations

import nh3

# Everything Python-Markdown, pymdownx (highlight, superfences, tabbed, details), admonitions,
# tables and the errorkb templates put into a page's content.
TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "input", "ins", "kbd", "label", "li", "mark",
    "ol", "p", "pre", "s", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td",
    "tfoot", "th", "thead", "tr", "ul",
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
    "td": {"style", "colspan", "rowspan"},
    "th": {"style", "colspan", "rowspan"},
}
URL_SCHEMES = {"http", "https", "mailto"}
STYLES = {"text-align"}  # tables' column alignment


def sanitize(html: str) -> str:
    """`html` with only the elements, attributes and URLs listed above."""
    clean: str = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=URL_SCHEMES, link_rel=None,
                           filter_style_properties=STYLES, attribute_filter=_attribute)
    return clean


def _attribute(tag: str, name: str, value: str) -> str | None:
    """Images only from the site itself: a reader's browser talks to nobody else."""
    if tag == "img" and name == "src" and ("//" in value or ":" in value.split("/", 1)[0]):
        return None
    return value
