"""What the browser's walk of every page of the real site costs, and what of it the tab's request routing costs.

    .venv/bin/python benchmarks/page_walk.py [--site FOLDER] [--pages N] [--n 1]

tests/site/test_browser.py's walk (`walk`) loads every page of the real site once at a phone's width and reads its
text and layout. Its tab used to route every request through Python (`Visit`: a `page.route("**/*")` handler that
records and refuses requests off 127.0.0.1, and one that refuses the search index). Playwright turns the browser's
HTTP cache off in a tab with any route, so every page fetched Material's scripts, styles and fonts again, each
request a round trip from Chromium through Playwright's driver to a Python handler and back, then to the server's
thread. The walk reads no request and no console line: `sitekb.WalkTab` gives it a tab with no route, whose pages come
from a server of the same folder that refuses the search index and lets the browser keep what it fetched
(`sitekb.serve_for_walk`); a request off 127.0.0.1 still fails, at Chromium's resolver (`sitekb.CHROMIUM_ARGS`).

Side by side, in one process, the same pages in the same order, the CPU seconds (user + system) of this process,
Chromium and Playwright's driver (a cpuacct cgroup, `check_start.Meter`), median of N:

- `routed`: the walk as before, in a `Visit` tab without its search index;
- `unrouted`: the walk in a `WalkTab`;

each with what the walk found (it must be the same). The site's build is not counted (`--site`: an already built
site; else one strict build of the repository's site first, as the tests build it: `sitekb.built_real_site`), and
each way's server is the one its tests read (`sitekb.serve_as`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=None, help="an already built site of the repository")
    parser.add_argument("--pages", type=int, default=0, help="walk the first N pages only (0: all)")
    parser.add_argument("--n", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from playwright.sync_api import sync_playwright

    from tests.site import sitekb
    from tests.site.test_browser import KINDS, walk

    with sitekb.built_real_site(args.site) as site:
        paths = sorted(p.relative_to(site).as_posix().removesuffix("index.html") for p in site.rglob("index.html"))
        paths = paths[:args.pages] if args.pages else paths
        kinds = tuple(kind for kind in KINDS if kind in paths)
        meter = Meter()
        try:
            with sitekb.serve_as(site, "plain") as routed_url, sitekb.serve_as(site, "walk") as walk_url, \
                    sync_playwright() as playwright:
                browser = sitekb.launch(playwright)
                ways = {"routed": lambda: (sitekb.Visit(browser, routed=True).without_search_index(), routed_url),
                        "unrouted": lambda: (sitekb.WalkTab(browser), walk_url)}
                spent: dict[str, list[float]] = {name: [] for name in ways}
                found: dict[str, object] = {}
                for round_ in range(args.n):  # each round in the other order: the first walk warms the page cache
                    for name, open_tab in list(ways.items())[::-1 if round_ % 2 else 1]:
                        before = meter.seconds()
                        tab, url = open_tab()
                        found[name] = walk(tab, url, paths, kinds)
                        tab.close()
                        spent[name].append(meter.seconds() - before)
                browser.close()
        finally:
            meter.close()
    print(f"the walk of {len(paths)} pages ({len(kinds)} kinds read at both widths), CPU s, median of {args.n}:")
    base = statistics.median(spent["routed"])
    for name, seconds in spent.items():
        print(f"  {name:10} {statistics.median(seconds):7.1f} s  {statistics.median(seconds) / base:5.2f}x  "
              f"found {found[name]}")
    return 0 if found["routed"] == found["unrouted"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
