"""Every escape filter, in every place a template writes it, with every hostile value (tests/site/hostile.py),
renders inert through Python-Markdown with the site's own extensions (mkdocs.yml), without the site's sanitiser
(what `errorkb render --out` hands any engine): no markup, no handler, no script URL, and an element a template
wrote keeps exactly the attributes it was written with.

The class of failure (session 60's review): a filter safe in one place and not in another. `attr` escaped HTML
but not Markdown, so in *inline* HTML (a table cell, a paragraph, a list item) the engine read a report's
`[a](onmouseover=alert(1)//)` inside `title="..."` as a link, whose own quoted `href` ended the title and left
`onmouseover` an attribute of the template's element. In a block of HTML the same value was harmless.
The templates are rendered through the real Jinja environment (`render._environment`), so its `finalize`
(`escape.text`, the filter of every unfiltered value) is tested too.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from errorkb.site.render import _environment
from tests.site.hostile import FAMILIES, MARKUP
from tests.site.test_inert import audit, site_markdown

TEMPLATES = Path(__file__).resolve().parents[2] / "errorkb" / "site" / "templates"
UNPRINTABLE = re.compile("[\\x00-\\x08\\x0e-\\x1f\\x7f-\\x9f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2069]")
PAYLOADS = {**MARKUP, **{f"paste: {name}": make(300) for name, make in FAMILIES.items()}}

# Where a template puts a value: the `{}` is the Jinja expression. Each an HTML element of class `ekb-probe`.
PLACES = {
    "block HTML": "<div class=\"ekb-probe\" {}>x</div>\n\nafter\n",
    "inline HTML in a table cell": "| a | b |\n|---|---|\n| <span class=\"ekb-probe\" {}>x</span> | y |\n",
    "inline HTML in a paragraph": "Some words <span class=\"ekb-probe\" {}>x</span> and more.\n",
    "a list item": "- <span class=\"ekb-probe\" {}>x</span> — words\n- next\n",
    "a heading's line": "## A <span class=\"ekb-probe\" {}>x</span>\n",
}
# What goes in an attribute: `attr` (report text), an unfiltered value (`finalize` writes it as `escape.text`),
# and a link destination (`url`).
IN_ATTRIBUTES = {"attr": 'title="{{ v | attr }}"', "unfiltered": 'title="stale {{ v }}: why"',
                 "url": 'href="{{ v | url }}"'}
# What goes in an element's text: every filter that writes one line of text (`inert` writes blocks, a fence's code
# as it is: it stands in Markdown, never in HTML, where no engine escapes the code; tests/site/test_inert.py).
IN_TEXT = {"unfiltered": "{{ v }}", **{name: "{{ v | " + name + " }}" for name in ("code", "line", "short")}}


class _Probe(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.probes: list[dict[str, str | None]] = []

    def handle_starttag(self, tag, attrs):
        if ("class", "ekb-probe") in attrs:
            self.probes.append(dict(attrs))

    handle_startendtag = handle_starttag


def probes(page: str) -> list[dict[str, str | None]]:
    parser = _Probe()
    parser.feed(page)
    parser.close()
    return parser.probes


def rendered(source: str, value: str) -> str:
    return site_markdown().convert(_environment().from_string(source).render(v=value))


@pytest.mark.parametrize("payload", PAYLOADS, ids=list(PAYLOADS))
@pytest.mark.parametrize("where", IN_ATTRIBUTES)
@pytest.mark.parametrize("place", PLACES)
def test_a_value_in_an_attribute_stays_in_it_wherever_the_element_stands(place, where, payload):
    page = rendered(PLACES[place].format(IN_ATTRIBUTES[where]), PAYLOADS[payload])
    found, _ = audit(page)
    assert not found, (found, page)
    [probe] = probes(page)
    name = IN_ATTRIBUTES[where].split("=")[0]
    assert set(probe) == {"class", name}, page  # nothing broke out of the attribute
    if where == "attr":  # and it reads as the report wrote it, on one line
        shown = probe[name] or ""
        if UNPRINTABLE.search(PAYLOADS[payload]):  # shown as its escape, never obeyed
            assert "\\u" in shown and not UNPRINTABLE.search(shown), (shown, page)
        else:
            assert shown == " ".join(PAYLOADS[payload].split()), (shown, page)


@pytest.mark.parametrize("payload", PAYLOADS, ids=list(PAYLOADS))
@pytest.mark.parametrize("place", ["a paragraph", "a list item", "a table cell"])
def test_a_link_destination_links_nowhere_but_http_mailto_or_the_site(place, payload):
    """`url` in a Markdown link: a character reference in the destination (`&#106;avascript:`, `javascript&colon;`)
    is read as its character by the browser, and by a CommonMark engine, after `url` judged the scheme."""
    source = {"a paragraph": "Words [x]({{ v | url }}) words.\n", "a list item": "- [x]({{ v | url }})\n",
              "a table cell": "| a |\n|---|\n| [x]({{ v | url }}) |\n"}[place]
    page = rendered(source, PAYLOADS[payload])
    found, _ = audit(page)
    assert not found, (found, page)


def test_a_link_destination_keeps_its_query():
    """The control: `&` in an address reads as `&` (written `&amp;`, which the browser reads back)."""
    [probe] = probes(rendered('<a class="ekb-probe" href="{{ v | url }}">x</a>\n', "https://example.org/a?b=1&c=2"))
    assert probe["href"] == "https://example.org/a?b=1&c=2"


@pytest.mark.parametrize("payload", PAYLOADS, ids=list(PAYLOADS))
@pytest.mark.parametrize("name", IN_TEXT)
@pytest.mark.parametrize("place", PLACES)
def test_a_value_in_an_element_s_text_makes_no_markup(place, name, payload):
    source = PLACES[place].format('title="t"').replace(">x<", f">{IN_TEXT[name]}<")
    assert IN_TEXT[name] in source
    page = rendered(source, PAYLOADS[payload])
    found, _ = audit(page)
    assert not found, (found, page)
    assert [set(probe) for probe in probes(page)] == [{"class", "title"}], page


@pytest.mark.parametrize("payload", PAYLOADS, ids=list(PAYLOADS))
def test_a_front_matter_value_reads_back_as_written_and_prints_inert(payload):
    """`yaml`: the front matter is read by YAML, and Material prints the value unescaped in `<title>` and `<h1>`."""
    written = _environment().from_string("---\ntitle: {{ v | yaml }}\n---\n").render(v=PAYLOADS[payload])
    written.encode("utf-8")  # the page is written as UTF-8
    value = yaml.safe_load(written.split("---\n")[1])["title"]
    assert html.unescape(value) == PAYLOADS[payload]
    found, _ = audit(f"<title>{value}</title><h1 class=\"ekb-probe\">{value}</h1>")
    assert not found, value


def test_a_front_matter_value_holding_a_lone_surrogate_is_still_a_utf8_page():
    """A lone surrogate (YAML's `"\\ud800"`, or a report's JSON `"\\ud800"`) cannot be written as UTF-8: it is
    written as its `\\u` escape, which YAML reads back as the same string."""
    written = _environment().from_string("title: {{ v | yaml }}\n").render(v="a\ud800b")
    written.encode("utf-8")
    assert yaml.safe_load(written)["title"] == "a\ud800b"


@pytest.mark.parametrize("payload", PAYLOADS, ids=list(PAYLOADS))
def test_an_html_fragment_stays_one_block_and_keeps_its_text(payload):
    """`fragment`: the sanitiser reads the block's character references back to characters, so a blank line in its
    text would end the HTML block and what follows would be Markdown, read by any engine."""
    value = PAYLOADS[payload]
    page = rendered('{% filter fragment %}<p class="ekb-probe" title="{{ v | attr }}"><code>{{ raw }}</code></p>'
                    "{% endfilter %}\n\nafter\n".replace("{{ raw }}", "{{ v | e }}"), value)
    found, shown = audit(page)
    assert not found, (found, page)
    assert [set(probe) for probe in probes(page)] == [{"class", "title"}], page


ATTRIBUTE_VALUE = re.compile(r"""\s[\w-]+="([^"]*)\"""")
FILTER = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")


def test_no_template_writes_a_value_into_an_attribute_through_a_filter_made_for_text():
    """The filters `line`, `short`, `inert`, `code` and `fragment` write Markdown or elements: inside an
    attribute an engine reads them as markup whose quotes end the attribute. An attribute takes `attr`, `url`
    or an unfiltered value (`escape.text`), the three tested above in every place."""
    allowed = {"attr", "url", "e", "lower", "upper", "string", "join", "length", "int", "round", "default", "num"}  # `num`: a number
    wrong = []
    for template in sorted(TEMPLATES.glob("*.j2")):
        for number, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
            for value in ATTRIBUTE_VALUE.findall(line):
                for expression in FILTER.findall(value):
                    used = {name for name in re.findall(r"\|\s*(\w+)", expression)}
                    if used - allowed:
                        wrong.append(f"{template.name}:{number}: {expression} ({', '.join(sorted(used - allowed))})")
    assert not wrong, wrong


@pytest.mark.parametrize("payload", PAYLOADS, ids=list(PAYLOADS))
def test_an_html_fragment_holds_no_blank_line_and_reads_the_same(payload):
    """For a CommonMark engine an HTML block ends at a blank line (Python-Markdown reads on to the closing tag), and
    the sanitiser has read the block's references back to characters: after a blank line, a value's
    `[x](https://elsewhere)` and `![i](https://elsewhere/x.png)` were Markdown again."""
    value = PAYLOADS[payload]
    written = _environment().from_string('{% filter fragment %}<p class="ekb-probe"><code>{{ v | e }}</code></p>'
                                         "{% endfilter %}").render(v=value)
    assert not re.search(r"\n[ \t]*(?:\n|\Z)", written), written
    _, shown = audit(written)
    _, before = audit(str(sanitize_only(f'<p class="ekb-probe"><code>{html.escape(value)}</code></p>')))
    assert shown == before


def sanitize_only(markup: str) -> str:
    from errorkb.site.sanitize import sanitize

    return sanitize(markup)
