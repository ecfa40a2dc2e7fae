"""Pages as a reader sees them (issue 24): the repository's own site, built as `mkdocs build
--strict` builds it, opened in Debian's Chromium at three widths in light and dark. Each view is
kept as a screenshot where something keeps it (`sitekb.screenshots`: CI keeps the first screen) and checked
for what can be checked mechanically: nothing wider than the viewport
outside a frame that scrolls on its own, no markup or escape shown as text, one strip cell per
release of the version matrix, and WCAG AA contrast of the badges' text (4.5:1) and of the
release pictures' cells against the page (3:1, non-text)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.site.sitekb import ARTIFACTS, ROOT, Shots, screenshots, shoot
from tests.site.test_browser import LITERAL, OVERFLOW, VISIBLE_TEXT  # `reader_site`: tests/site/sitekb.py

pytestmark = pytest.mark.browser


WIDTHS = (1300, 768, 390)
ENTRY = "errors/transformers/get-max-length-removed/"
PAGES = {"home": "", "entry": ENTRY, "migration": "migration/", "verification": "verification/"}

# Contrast ratios from computed styles: badges' text on their background (opacity folded in),
# the pictures' marks (fill, or stroke when unfilled) on the page behind them.
CONTRAST = """() => {
  const rgba = (text) => { const m = text.match(/[\\d.]+/g) || [0, 0, 0, 0];
    return [+m[0], +m[1], +m[2], m.length > 3 ? +m[3] : 1]; };
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0.99) return c;
    }
    return [255, 255, 255, 1];
  };
  const over = (fg, bg, alpha) => fg.slice(0, 3).map((v, i) => v * alpha + bg[i] * (1 - alpha));
  const lum = (c) => { const [r, g, b] = c.map((v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const out = [];
  for (const el of document.querySelectorAll('.ekb-badge, .ekb-badge *, .ekb-mini, .ekb-chip, .ekb-cell')) {
    if (!el.textContent.trim() || el.getClientRects().length === 0) continue;
    const style = getComputedStyle(el), bg = background(el);
    let alpha = rgba(style.color)[3];
    for (let e = el; e && !e.classList.contains('md-content'); e = e.parentElement) alpha *= +getComputedStyle(e).opacity;
    out.push({kind: 'text', what: el.className, ratio: ratio(over(rgba(style.color), bg, alpha), bg)});
  }
  for (const rect of document.querySelectorAll('.ekb-strip rect, .ekb-heat rect')) {
    const style = getComputedStyle(rect), bg = background(rect.closest('svg'));
    const paint = style.fill === 'none' ? style.stroke : style.fill;
    const c = rgba(paint);
    out.push({kind: 'mark', what: rect.parentElement.getAttribute('class'), ratio: ratio(over(c, bg, c[3]), bg)});
  }
  return out;
}"""


@pytest.mark.parametrize("environ, shots", [
    ({}, None), ({"CI": "false"}, None), ({"CI": "true"}, Shots(ARTIFACTS / "screenshots", full_page=False)),
    ({"CI": "1", "ERRORKB_SCREENSHOTS": "/kept"}, Shots(Path("/kept"), full_page=True)),
    ({"ERRORKB_SCREENSHOTS": "/kept"}, Shots(Path("/kept"), full_page=True))])
def test_screenshots_are_taken_where_they_are_kept(environ, shots):
    """Whole pages where someone asked for them, the first screen in CI, none in a local run."""
    assert screenshots(environ) == shots


def releases_in_matrix() -> list[str]:
    data = json.loads((ROOT / "reports" / "matrix" / "transformers.json").read_text(encoding="utf-8"))
    return [one["release"] for one in data["releases"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_pages_read_at_every_width_in_both_schemes(visit, reader_site, width, scheme):
    """In a tab that routes nothing, over a server that sends the real search index once a session
    (`sitekb.reader_site`): the pages' scripts, styles and fonts come from the browser's cache after the first."""
    _, url = reader_site
    tab = visit(scheme)
    tab.page.set_viewport_size({"width": width, "height": 900})
    problems: dict[str, object] = {}
    for name, path in PAGES.items():
        tab.page.goto(url + path, wait_until="load")
        assert tab.page.locator("body").get_attribute("data-md-color-scheme") == \
            ("slate" if scheme == "dark" else "default")
        shoot(tab.page, f"{name}-{width}-{scheme}")
        overflow = tab.page.evaluate(OVERFLOW)
        if overflow:
            problems[f"{name}: overflow"] = overflow
        shown = sorted({m.group() for m in LITERAL.finditer(tab.page.evaluate(VISIBLE_TEXT))})
        if shown:
            problems[f"{name}: markup shown as text"] = shown
        low = [(one["what"], round(one["ratio"], 2)) for one in tab.page.evaluate(CONTRAST)
               if one["ratio"] < (4.5 if one["kind"] == "text" else 3.0)]
        if low:
            problems[f"{name}: contrast below AA"] = sorted(set(low))[:10]
        if name == "entry":
            cells = tab.page.locator(".ekb-strip svg .ekb-strip__cell")
            assert cells.count() == len(releases_in_matrix())
            assert [re.split(r":", t, maxsplit=1)[0] for t in cells.locator("title").all_text_contents()] \
                == releases_in_matrix()
        if name == "verification":
            assert tab.page.locator(".ekb-heat tbody tr th a").count() >= 90
    assert not problems, problems
    assert tab.errors == [] and tab.outside == [], (tab.errors, tab.outside)


def longest_entries(count: int = 3) -> list[str]:
    """The entries whose title and message take the most room above the fix: the worst first screens."""
    index = json.loads((ROOT / "transformers_errorkb" / "index.json").read_text(encoding="utf-8"))
    ranked = sorted(index["entries"], key=lambda one: -(len(one["title"]) + len(one["message"]) + len(one["fix"])))
    return [one["url"] for one in ranked[:count]]


@pytest.mark.parametrize("path", [ENTRY, *longest_entries()])
def test_the_first_screen_of_a_phone_shows_the_message_and_the_fix(visit, reader_site, path):
    """A person whose script just died lands on the page from a search on a phone: the message and
    the fix (with its own verdict) must be on the first screen, not under the meaning and the trigger."""
    _, url = reader_site
    tab = visit("light")
    tab.page.set_viewport_size({"width": 390, "height": 844})
    tab.page.goto(url + path, wait_until="load")
    for selector in ("h2.ekb-message", "p.ekb-fix", "p.ekb-fix .ekb-chip"):
        box = tab.page.locator(selector).first.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, (path, selector, box)
    assert tab.page.locator("p.ekb-fix a[href$='#example-fix']").count() == 1  # Material makes it absolute
    assert tab.page.locator("#example-fix").count() == 1
