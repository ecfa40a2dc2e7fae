"""What the site tests' MkDocs builds cost in a fresh interpreter each, and forked from the warm builder.

    .venv/bin/python benchmarks/site_tests.py [--n 4] [--every-entry] [--index-site FOLDER] [--serve]

`tests/site/sitekb.mkdocs_build` ran every build as `python -m mkdocs build` in a fresh interpreter, which imported
MkDocs, Material, the Markdown extensions and errorkb's plugin again each time; it now forks each build from one
interpreter per test process that has imported them once (`sitekb._WarmBuilder`), where that child is what a fresh
interpreter would be. The full tier builds the two-entry site and its variants about forty times (tests/site/
test_build.py, test_outside.py, test_payloads.py, the own-library tests).

Side by side, in one process, alternating, the CPU seconds (user + system) of the builds' processes (a cpuacct cgroup,
`check_start.Meter`), median of N: a strict build of the two-entry site (`sitekb.site_project`) `fresh` and `forked`
(the builder's start counted once, in its first build), each with what it built (it must be the same: exit code,
warnings, the pages). `--every-entry`: also one strict build of every entry as tests/site/test_search.py made besides
the session's `real_site` before, which that test now reads instead (what each full tier saves). `--index-site`: an
already built site of the repository, whose three pages tests/site/test_browser.py's migration test reads are loaded
in one tab (Chromium, its driver and this process counted) over `real_site`'s server, which sends Material's search
worker the whole index (3.1 MB) on every page, and over `reader_site`'s (`sitekb.index_once`: once a session), which
the test now reads. `--serve`: `mkdocs serve --livereload --dirty` of the two-entry site, as tests/site/test_serve.py
starts it for each test, from its start until the entry's page is served, then stopped: `fresh` (a new interpreter,
as those tests started it) and `forked` (`sitekb.mkdocs_serve`, the warm builder's child), each with the page it served
(it must be the same).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_start import ROOT, Meter


def built(result: subprocess.CompletedProcess, site: Path) -> tuple:
    """What a build made: its exit code, its warnings and its pages, for the two ways to be compared."""
    warnings = sorted(line for line in result.stderr.splitlines() if line.startswith("WARNING"))
    pages = sorted(path.relative_to(site).as_posix() for path in site.rglob("*.html"))
    return result.returncode, warnings, pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--every-entry", action="store_true")
    parser.add_argument("--index-site", type=Path, default=None, help="an already built site of the repository")
    parser.add_argument("--serve", action="store_true", help="also `mkdocs serve` started fresh and forked")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.site import sitekb

    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    spent: dict[str, list[float]] = {"fresh": [], "forked": []}
    found: dict[str, set] = {"fresh": set(), "forked": set()}
    meter = Meter()
    try:
        with tempfile.TemporaryDirectory() as folder:
            project = sitekb.site_project(Path(folder) / "kb")
            config = project / "mkdocs.yml"
            for round_ in range(args.n):  # each round in the other order
                for way in ("fresh", "forked")[::-1 if round_ % 2 else 1]:
                    site = Path(folder) / f"site-{way}"
                    shutil.rmtree(site, ignore_errors=True)
                    before = meter.seconds()
                    if way == "fresh":
                        result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d",
                                                 str(site), "--strict"], capture_output=True, text=True, env=env,
                                                cwd=project, timeout=600)
                    else:
                        result = sitekb.mkdocs_build(config, site, timeout=600)
                    spent[way].append(meter.seconds() - before)
                    found[way].add(repr(built(result, site)))
            _print_medians(f"a strict build of the two-entry site, CPU s, median of {args.n} (forked: the builder's "
                           f"start in its first):", spent)
            same = found["fresh"] == found["forked"] and len(found["fresh"]) == 1
            print(f"  the same build (exit code, warnings, pages): {same}")
            if args.every_entry:
                ids = sorted(path.stem for path in (ROOT / "docs" / "errors" / "transformers").glob("*.yml"))
                full = sitekb.site_project(Path(folder) / "full-kb", ids=ids, site_url="http://127.0.0.1:8000/")
                for report in (ROOT / "reports").glob("*.json"):
                    shutil.copy(report, full / "reports" / report.name)
                before = meter.seconds()
                result = sitekb.mkdocs_build(full / "mkdocs.yml", Path(folder) / "full-site", timeout=900)
                print(f"the search test's own build of every entry (now read from real_site): "
                      f"{meter.seconds() - before:.1f} s (exit code {result.returncode})")
            if args.serve:
                same &= serve_starts(project, Path(folder), args.n, meter)
        if args.index_site is not None:
            index_served(args.index_site, args.n, meter)
    finally:
        meter.close()
    return 0 if same else 1


def _print_medians(title: str, spent: dict[str, list[float]]) -> None:
    """`title`, then each way's median, its ratio to the first way's, and each run's figure."""
    print(title)
    base = statistics.median(next(iter(spent.values())))
    width = max(map(len, spent))
    for way, seconds in spent.items():
        print(f"  {way:{width}} {statistics.median(seconds):6.2f} s  {statistics.median(seconds) / base:5.2f}x  "
              f"(each: {', '.join(f'{one:.2f}' for one in seconds)})")


def serve_starts(project: Path, folder: Path, n: int, meter: Meter) -> bool:
    """`mkdocs serve` of `project` started `fresh` and `forked`, alternating, until its entry page is served; whether
    both served the same page."""
    import time
    import urllib.error
    import urllib.request

    from tests.site import sitekb

    entry = "errors/transformers/head-dim-list-length/"
    spent: dict[str, list[float]] = {"fresh": [], "forked": []}
    found: dict[str, set] = {"fresh": set(), "forked": set()}
    options = ("--livereload", "--dirty")
    for round_ in range(n):
        for way in list(spent)[::-1 if round_ % 2 else 1]:
            port, log = sitekb.free_port(), folder / f"serve-{way}-{round_}.log"
            before = meter.seconds()
            # fresh: as tests/site/test_serve.py started it before
            with sitekb.mkdocs_serve(project / "mkdocs.yml", port, log, *options, fresh=way == "fresh") as serving:
                assert serving.forked is (way == "forked"), way
                page = None
                for _ in range(2400):
                    try:
                        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{entry}", timeout=5) as response:
                            page = response.read().decode()
                        break
                    except (urllib.error.URLError, ConnectionError, TimeoutError):
                        time.sleep(0.05)
            spent[way].append(meter.seconds() - before)
            found[way].add(repr((page is not None and "What it means" in page,
                                 None if page is None else page.count("ekb-badge"))))
    _print_medians(f"`mkdocs serve` of the two-entry site until its entry page is served, then stopped, CPU s, "
                   f"median of {n}:", spent)
    same = found["fresh"] == found["forked"] and len(found["fresh"]) == 1
    print(f"  the same page served: {same} {sorted(found['fresh'])}")
    return same


def index_served(site: Path, n: int, meter: Meter) -> None:
    from playwright.sync_api import sync_playwright

    from tests.site import sitekb

    paths = ["migration/", "errors/transformers/cache-only-has-0-layers/", "errors/transformers/get-max-length-removed/"]
    spent: dict[str, list[float]] = {"real_site": [], "reader_site": []}
    with sync_playwright() as playwright, sitekb.serve_as(site, "real") as every, \
            sitekb.serve_as(site, "reader") as once:
        browser = sitekb.launch(playwright)
        first = sitekb.Visit(browser)  # the session's first page takes the real index, as a session's does
        first.page.goto(once, wait_until="load")
        first.page.wait_for_timeout(2000)
        first.close()
        for round_ in range(n):
            for way in list(spent)[::-1 if round_ % 2 else 1]:
                before = meter.seconds()
                tab = sitekb.Visit(browser)
                for path in paths:
                    tab.page.goto((every if way == "real_site" else once) + path, wait_until="load")
                tab.page.wait_for_timeout(1500)  # the last page's worker has fetched and indexed what it was sent
                tab.close()
                spent[way].append(meter.seconds() - before)
        browser.close()
    _print_medians(f"the migration test's three pages in one tab, CPU s, median of {n}:", spent)


if __name__ == "__main__":
    raise SystemExit(main())
