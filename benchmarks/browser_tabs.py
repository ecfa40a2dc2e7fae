"""What the browser tests' tabs cost routed, and what they cost reading requests and the console from events.

    .venv/bin/python benchmarks/browser_tabs.py [--site FOLDER] [--n 1]

`sitekb.Visit`'s tab used to route every request through Python (a `page.route("**/*")` handler that records and
refuses requests off 127.0.0.1), and the reader views routed the search index besides (the real one once, then one
holding no documents). Playwright turns the browser's HTTP cache off in a tab with any route, so every page fetched
Material's scripts, styles and fonts again, each request a round trip from Chromium through Playwright's driver to a
Python handler and back. `Visit` now routes nothing: it records a request off 127.0.0.1 from the context's `request`
event (which fails at Chromium's resolver, `sitekb.CHROMIUM_ARGS`) and console errors from `console` and `pageerror`;
the reader views' server sends the search index once and lets the browser keep the rest (`sitekb.reader_site`), and
the payload and search sites' servers let it keep what they serve (`sitekb._Kept`).

Side by side, in one process, the same work in the same order, the CPU seconds (user + system) of this process,
Chromium and Playwright's driver (a cpuacct cgroup, `check_start.Meter`), median of N:

- the reader views (tests/site/test_reader_view.py): six tabs (three widths, two schemes), four pages of the real
  site each, each page screenshot and read for overflow, markup shown as text and contrast;
- the payload walk (tests/site/test_payloads.py's `test_no_page_can_run_script`): every page of the payload
  knowledge base, audited for handlers and script URLs;

each `routed` (the tab and routes as before) and `unrouted` (as now), with what each found (it must be the same: the
problems, the console errors and the requests off 127.0.0.1). The sites' builds are not counted (`--site`: an already
built site of the repository; else one strict build of it first, `sitekb.built_real_site`; the servers are the
tests', `sitekb.serve_as`).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter


def index_route(site: Path):
    """The reader views' route before: the real search index to its first request, then one holding no documents."""
    real = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    empty = json.dumps({**json.loads(real), "docs": []})
    served: list[str] = []

    def route(route) -> None:
        route.fulfill(status=200, content_type="application/json", body=empty if served else real)
        served.append(route.request.url)

    return route


def reader_views(browser, url: str, routed: bool, route, shots: Path) -> dict:
    from tests.site import sitekb
    from tests.site.test_browser import LITERAL, OVERFLOW, VISIBLE_TEXT
    from tests.site.test_reader_view import CONTRAST, PAGES, WIDTHS

    found: dict[str, object] = {}
    for width in WIDTHS:
        for scheme in ("light", "dark"):
            tab = sitekb.Visit(browser, scheme, routed=routed)
            if route is not None:
                tab.page.route("**/search/search_index.json", route)
            tab.page.set_viewport_size({"width": width, "height": 900})
            for name, path in PAGES.items():
                tab.page.goto(url + path, wait_until="load")
                sitekb.shoot(tab.page, f"{name}-{width}-{scheme}", sitekb.Shots(shots, full_page=True))
                found[f"{name} {width} {scheme}"] = (
                    bool(tab.page.evaluate(OVERFLOW)),
                    sorted({m.group() for m in LITERAL.finditer(tab.page.evaluate(VISIBLE_TEXT))}),
                    len(tab.page.evaluate(CONTRAST)))
            found[f"{width} {scheme} console, outside"] = (tab.errors, tab.outside)
            tab.close()
    return found


def payload_walk(browser, site: Path, url: str, routed: bool) -> dict:
    from tests.site import sitekb
    from tests.site.test_payloads import AUDIT, pages

    tab = sitekb.Visit(browser, routed=routed)
    dialogs: list[str] = []
    tab.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    found: dict[str, object] = {}
    for path in pages(site):
        tab.page.goto(url + path, wait_until="load")
        tab.page.wait_for_timeout(150)
        found[path] = tab.page.evaluate(AUDIT)
    found["dialogs, outside"] = (dialogs, tab.outside)
    tab.close()
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=None, help="an already built site of the repository")
    parser.add_argument("--n", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from tests.site import sitekb
    from tests.site.test_payloads import build_payload_site

    with sitekb.built_real_site(args.site) as site, tempfile.TemporaryDirectory() as folder:
        payload = build_payload_site(Path(folder) / "payload-kb", Path(folder) / "payload-site")
        shots = Path(folder) / "shots"
        meter = Meter()
        spent: dict[str, list[float]] = {}
        found: dict[str, object] = {}
        try:
            with sync_playwright() as playwright:
                browser = sitekb.launch(playwright)
                for round_ in range(args.n):  # each round in the other order: the first run warms the page cache
                    for routed in (True, False)[::-1 if round_ % 2 else 1]:
                        way = "routed" if routed else "unrouted"
                        before = meter.seconds()
                        with sitekb.serve_as(site, "plain" if routed else "reader") as url:
                            found[f"reader views {way}"] = reader_views(browser, url, routed,
                                                                        index_route(site) if routed else None, shots)
                        middle = meter.seconds()
                        with sitekb.serve_as(payload, "plain" if routed else "real") as url:
                            found[f"payload walk {way}"] = payload_walk(browser, payload, url, routed)
                        after = meter.seconds()
                        spent.setdefault(f"reader views {way}", []).append(middle - before)
                        spent.setdefault(f"payload walk {way}", []).append(after - middle)
                browser.close()
        finally:
            meter.close()
    print(f"CPU s, median of {args.n} (routed: as before; unrouted: requests and console from events):")
    same = True
    for work in ("reader views", "payload walk"):
        base = statistics.median(spent[f"{work} routed"])
        for way in ("routed", "unrouted"):
            seconds = statistics.median(spent[f"{work} {way}"])
            print(f"  {work:13} {way:9} {seconds:7.1f} s  {seconds / base:5.2f}x")
        agree = found[f"{work} routed"] == found[f"{work} unrouted"]
        same &= agree
        print(f"  {work:13} the same findings: {agree}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
