"""What the reader views' browser tests cost as they were and as they are, side by side in one process.

    .venv/bin/python benchmarks/reader_views.py [--site FOLDER] [--n 1]

Changes of issue 22, each measured every way on the same browser, the same work in the same order:

- the reader views (tests/site/test_reader_view.py): six tabs (three widths, two schemes), four pages of the real site
  each, read for overflow, markup shown as text and contrast, `whole pages` with a full-page screenshot of every view
  (as every run took them at first, and CI until session 60), `first screens` with one of the first screen (CI now)
  and `no shots` (a run outside CI, where nothing keeps them): `sitekb.screenshots`;
- the paste box's tests (tests/site/test_reader_home.py, test_reader_origin.py): the home page at three sizes, and
  two pastes (r013, h207) read as those tests read them, over `real_site`'s server (`whole index`: Material's search
  worker fetches and indexes the 3.1 MB index on every page, though they never search) and over `reader_site`'s
  (`index once`: the real index to the first request, one holding no documents after).

CPU seconds (user + system) of this process, Chromium and Playwright's driver (a cpuacct cgroup, `check_start.Meter`),
median of N, each round in another order; what each way found must be the same. The site's build is not counted
(`--site`: an already built site of the repository; else one strict build of it first, `sitekb.built_real_site`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter


def reader_views(browser, url: str, shots) -> dict:
    from tests.site import sitekb
    from tests.site.test_browser import LITERAL, OVERFLOW, VISIBLE_TEXT
    from tests.site.test_reader_view import CONTRAST, PAGES, WIDTHS

    found: dict[str, object] = {}
    for width in WIDTHS:
        for scheme in ("light", "dark"):
            tab = sitekb.Visit(browser, scheme)
            tab.page.set_viewport_size({"width": width, "height": 900})
            for name, path in PAGES.items():
                tab.page.goto(url + path, wait_until="load")
                sitekb.shoot(tab.page, f"{name}-{width}-{scheme}", shots)
                found[f"{name} {width} {scheme}"] = (
                    bool(tab.page.evaluate(OVERFLOW)),
                    sorted({m.group() for m in LITERAL.finditer(tab.page.evaluate(VISIBLE_TEXT))}),
                    len(tab.page.evaluate(CONTRAST)))
            found[f"{width} {scheme} console, outside"] = (tab.errors, tab.outside)
            tab.close()
    return found


def paste_box(browser, url: str) -> dict:
    from tests.site import sitekb
    from tests.site.test_reader_origin import _removed_api_hit, _report

    found: dict[str, object] = {}
    for width, height in ((390, 844), (360, 640), (1280, 800)):  # test_reader_home.py
        tab = sitekb.Visit(browser)
        tab.page.set_viewport_size({"width": width, "height": height})
        tab.page.goto(url, wait_until="load")
        box = tab.page.locator(".ekb-lookup__input").bounding_box()
        found[f"home {width}x{height}"] = (box is not None and box["y"] + 48 <= height, tab.errors, tab.outside)
        tab.close()
    tab = sitekb.Visit(browser)
    tab.page.set_viewport_size({"width": 390, "height": 844})
    hit = _removed_api_hit(tab, url)  # test_reader_origin.py's r013
    found["r013"] = (hit.locator(".ekb-lookup__meta").inner_text(), tab.errors, tab.outside)
    tab.close()
    tab = sitekb.Visit(browser)
    tab.page.goto(url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(_report("h207")["paste"])
    hint = tab.page.locator(".ekb-lookup__reasons code", has_text="directly inherit").first
    found["h207"] = (hint.inner_text(), tab.errors, tab.outside)
    tab.close()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=None, help="an already built site of the repository")
    parser.add_argument("--n", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import expect, sync_playwright

    from tests.site import sitekb

    expect.set_options(timeout=sitekb.BROWSER_WAIT_MS)
    views = {"whole pages": True, "first screens": False, "no shots": None}  # full_page, or no screenshot
    boxes = {"whole index": "real", "index once": "reader"}  # the server, `sitekb.serve_as`
    spent: dict[str, list[float]] = {}
    found: dict[str, object] = {}
    with sitekb.built_real_site(args.site) as site, tempfile.TemporaryDirectory() as folder:
        meter = Meter()
        try:
            with sync_playwright() as playwright:
                browser = sitekb.launch(playwright)
                for round_ in range(args.n):  # each round in another order: the first run warms the page cache
                    turn = round_ % len(views)
                    for way, full_page in list(views.items())[turn:] + list(views.items())[:turn]:
                        shots = None if full_page is None else sitekb.Shots(Path(folder) / way, full_page)
                        start = meter.seconds()
                        with sitekb.serve_as(site, "reader") as url:
                            found[f"reader views {way}"] = reader_views(browser, url, shots)
                        spent.setdefault(f"reader views {way}", []).append(meter.seconds() - start)
                    for way, server in list(boxes.items())[::-1 if round_ % 2 else 1]:
                        start = meter.seconds()
                        with sitekb.serve_as(site, server) as url:
                            found[f"paste box {way}"] = paste_box(browser, url)
                        spent.setdefault(f"paste box {way}", []).append(meter.seconds() - start)
                browser.close()
        finally:
            meter.close()
        taken = {way: len(list((Path(folder) / way).glob("*.png"))) for way in views}
    print(f"CPU s, median of {args.n} (screenshots taken: {taken}):")
    same = True
    for work, ways in (("reader views", list(views)), ("paste box", list(boxes))):
        base = statistics.median(spent[f"{work} {ways[0]}"])
        for way in ways:
            seconds = statistics.median(spent[f"{work} {way}"])
            print(f"  {work:12} {way:13} {seconds:7.1f} s  {seconds / base:5.2f}x")
        agree = all(found[f"{work} {way}"] == found[f"{work} {ways[0]}"] for way in ways)
        same &= agree
        print(f"  {work:12} the same findings: {agree}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
