"""Round fifteen: the inline syntaxes of the extensions a Material site commonly adds (Material's own setup pages
show each: pymdownx.emoji, pymdownx.arithmatex, abbr, pymdownx.mark / caret / keys). The site's mkdocs.yml enables
none of them; a knowledge base `errorkb init` started, or a site taking `errorkb render`'s Markdown, may. Round
eleven did their block syntaxes (`///`); these are what is left, and each made something no entry may make:

- an emoji shortcode (`:smile:`) is an image from a CDN with the emoji extension's default generator (a reader's
  browser fetching from another host), and an inline SVG with Material's;
- math (`$...$`, `\\(...\\)`, `$$...$$`, `\\[...\\]`) becomes the content of a `<script type="math/tex">` (or a
  span MathJax reads, in generic mode) that MathJax turns into markup in the reader's browser, past every
  sanitiser: `\\href{javascript:...}`, `\\style`, `\\class`. The site's sanitiser drops the script with its text;
- an abbreviation's definition (`*[verified]: not verified`) vanishes from the prose and puts its words on every
  occurrence of the word on the page, the page's own verdicts included;
- inside a code span (a `<code>` element whose text Python-Markdown still reads as inline Markdown) `a==b==c`,
  `^^x^^` or `++ctrl+c++` lost their markers, and `:smile:` or `$x$` became an image or math.

Each is text to every engine now; the reader sees the characters the author wrote.
"""

from __future__ import annotations

import copy
import re

import markdown
import pytest

from errorkb.site.escape import text as escaped_text
from errorkb.site.inert import inert
from errorkb.site.sanitize import sanitize
from tests.site.test_inert import _site_extensions, audit, in_contexts

# What Material's setup pages show for each (mkdocs-material's "Python Markdown Extensions" reference).
MATERIAL_EXTENSIONS = {
    "pymdownx.emoji": {"emoji_index": "material.extensions.emoji.twemoji",
                       "emoji_generator": "material.extensions.emoji.to_svg"},
    "pymdownx.arithmatex": {"generic": True},
    "abbr": {},
    "pymdownx.caret": {},
    "pymdownx.mark": {},
    "pymdownx.tilde": {},
    "pymdownx.keys": {},
    "pymdownx.betterem": {},
    "pymdownx.smartsymbols": {},
}


def _resolved(options: dict) -> dict:
    """Material's `!!python/name:` options as the objects they name."""
    import importlib

    out = {}
    for key, value in options.items():
        if isinstance(value, str) and value.startswith("material."):
            module, _, name = value.rpartition(".")
            value = getattr(importlib.import_module(module), name)
        out[key] = value
    return out


def engines() -> dict[str, markdown.Markdown]:
    """The site's extensions plus the commonly added ones: with Material's options, with each extension's
    defaults (the emoji extension's is a PNG from a CDN), and math in its default (script) mode."""
    names, configs = _site_extensions()
    material = {**copy.deepcopy(configs), **{name: _resolved(options) for name, options in MATERIAL_EXTENSIONS.items()}}
    return {
        "material options": markdown.Markdown(extensions=[*names, *MATERIAL_EXTENSIONS], extension_configs=material),
        "extension defaults": markdown.Markdown(extensions=[*names, *MATERIAL_EXTENSIONS],
                                                extension_configs=copy.deepcopy(configs)),
    }


ACTIVE = re.compile(r"<(?:img|svg|script|abbr|mark|ins|kbd|sup|sub|del)\b|class=\"(?:arithmatex|emojione|twemoji|"
                    r"critic|keys?)\b|\\\(|\\\[|\$\$")

SYNTAXES = {
    "emoji": (":smile: and :material-alert:", ":smile: and :material-alert:"),
    "emoji beside a word": ("see:heart:here", "see:heart:here"),
    "inline math": ("costs $\\href{javascript:alert(1)}{x}$ here", "$\\href{javascript:alert(1)}{x}$"),
    "bracketed math": ("a \\(\\href{javascript:alert(1)}{x}\\) b", "(\\href{javascript:alert(1)}{x})"),
    "display math": ("a \\[\\style{color:red}{x}\\] b", "[\\style{color:red}{x}]"),
    "dollar math block": ("$$\n\\href{javascript:alert(1)}{x}\n$$", "\\href{javascript:alert(1)}{x}"),
    "abbreviation": ("The fix is verified.\n\n*[verified]: not verified at all", "*[verified]: not verified at all"),
    "abbreviation in a list": ("- item\n- *[verified]: not verified", "*[verified]: not verified"),
    "code span with marks": ("`a==b==c` and `^^x^^` and `++ctrl+c++` and `~~y~~`",
                             "a==b==c and ^^x^^ and ++ctrl+c++ and ~~y~~"),
    "code span with an emoji and math": ("`x = :smile: + $y$`", "x = :smile: + $y$"),
}


@pytest.mark.parametrize("prose, shown", list(SYNTAXES.values()), ids=list(SYNTAXES))
def test_an_inline_syntax_of_a_commonly_added_extension_reads_as_its_text(prose, shown):
    for engine_name, engine in engines().items():
        for context, page in in_contexts(prose).items():
            engine.reset()
            html_page = engine.convert(page)
            found, text = audit(html_page)
            assert not found and not ACTIVE.search(html_page), (engine_name, context, html_page)
            if context in ("paragraph", "list item", "after a label"):  # (one-line contexts join the lines)
                assert shown in text, (engine_name, context, text)
                assert shown in audit(sanitize(html_page))[1], (engine_name, context, "lost by the sanitiser")


def test_time_and_urls_keep_their_colons_and_a_price_its_dollar():
    """Only a colon that opens a shortcode changes how it is written: a time, a URL, a reference
    definition and a link stay as they were; the reader sees every character."""
    prose = "At 12:30:45, see [the docs](https://example.com/a:b:c) or [r], for $5 and $6.\n\n[r]: ../x/"
    for engine_name, engine in engines().items():
        html_page = engine.convert(in_contexts(prose)["paragraph"])
        assert 'href="https://example.com/a:b:c"' in sanitize(html_page), (engine_name, html_page)
        assert 'href="../x/"' in html_page, (engine_name, html_page)
        assert "At 12:30:45, see the docs or r, for $5 and $6." in audit(html_page)[1], (engine_name, html_page)


@pytest.mark.parametrize("value", [":smile:", "a :heart: b", "x:+1:y"])
def test_a_value_a_template_writes_makes_no_emoji(value):
    """A report's free text (a reason, a captured message) goes through `escape.text`: `:smile:` became a CDN's
    image there too."""
    for engine_name, engine in engines().items():
        html_page = engine.convert(f"Reason: {escaped_text(value)}\n")
        assert not ACTIVE.search(html_page) and value in audit(html_page)[1], (engine_name, html_page)


def test_inert_output_for_the_site_itself_is_unchanged_to_a_reader():
    """On the site (no such extension), the same text reads as it did."""
    names, configs = _site_extensions()
    prose = "x :smile: y, `a==b` and $z$ and \\(w\\); *[HTML]: Hyper"
    html_page = markdown.Markdown(extensions=list(names), extension_configs=copy.deepcopy(configs)).convert(
        inert(prose))
    assert audit(html_page)[1].strip() == "x :smile: y, a==b and $z$ and (w); *[HTML]: Hyper", html_page
