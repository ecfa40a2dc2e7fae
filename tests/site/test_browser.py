"""The built site in a real browser (Debian's Chromium driven by playwright): pages load
clean and offline, the Before/After tabs switch, and both the paste box and the search find
the entry for a concrete error message. Screenshots are kept where something keeps them (`sitekb.shoot`)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.site.sitekb import MESSAGE, TRACEBACK, WalkTab, serve, serve_for_walk, shoot

pytestmark = pytest.mark.browser

ENTRY = "errors/transformers/head-dim-list-length/"



@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_entry_page_loads_clean_and_offline(visit, site_url, scheme):
    tab = visit(scheme)
    tab.page.goto(site_url + ENTRY, wait_until="load")
    expect(tab.page.locator("h1")).to_contain_text("list does not have one value per cache layer")
    # two verdicts (cpu, on each target), then the CUDA 'not run' of both targets folded into one line
    expect(tab.page.locator(".ekb-badge")).to_have_count(3)
    expect(tab.page.locator(".ekb-badge.ekb-badge--folded.ekb-not-run")).to_have_count(1)
    expect(tab.page.locator("body")).to_have_attribute("data-md-color-scheme", "slate" if scheme == "dark" else "default")
    tab.page.wait_for_timeout(300)  # late requests (search worker, index) would show up here
    shoot(tab.page, f"entry-{scheme}")
    assert tab.errors == [], tab.errors
    assert tab.outside == [], tab.outside


def test_before_after_tabs_switch(visit, site_url):
    tab = visit()
    tab.page.goto(site_url + ENTRY, wait_until="load")
    tabs = tab.page.locator(".tabbed-set").first
    before = tabs.locator(".tabbed-block").nth(0)
    after = tabs.locator(".tabbed-block").nth(1)
    expect(before).to_be_visible()
    expect(after).to_be_hidden()
    tabs.locator("label", has_text="After").click()
    expect(after).to_be_visible()
    expect(before).to_be_hidden()
    expect(after).to_contain_text("early_initialization")
    tabs.locator("label", has_text="Before").click()
    expect(before).to_be_visible()


@pytest.mark.parametrize("pasted", [MESSAGE, f"ValueError: {MESSAGE}", TRACEBACK], ids=["bare", "prefixed", "traceback"])
def test_paste_box_finds_the_entry(visit, site_url, pasted):
    tab = visit()
    tab.page.goto(site_url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(pasted)
    first = tab.page.locator(".ekb-lookup__hit").first
    expect(first.locator("a.ekb-lookup__title")).to_have_attribute("href", re.compile(re.escape(ENTRY) + "$"))
    expect(first).to_contain_text("{len(self.layers)} = 28")
    if pasted == TRACEBACK:
        shoot(tab.page, "home-lookup")
    assert tab.errors == [] and tab.outside == []


def test_paste_box_survives_instant_navigation(visit, site_url):
    """Material swaps pages without a reload: the box must mount again on each `document$`."""
    tab = visit()
    tab.page.goto(site_url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(MESSAGE)
    tab.page.locator(".ekb-lookup__hit a").first.click()
    tab.page.wait_for_url("**/" + ENTRY)
    expect(tab.page.locator("h1")).to_contain_text("head_dim")
    tab.page.evaluate("window.ekbSamePage = true")
    tab.page.locator(".md-tabs a", has_text="Errors").click()
    tab.page.wait_for_url("**/errors/")
    assert tab.page.evaluate("window.ekbSamePage === true"), "expected instant navigation, got a full reload"
    tab.page.locator(".ekb-lookup__input").fill(f"ValueError: {MESSAGE.replace('`head_dim`', '`num_head`')}")
    expect(tab.page.locator(".ekb-lookup__hit a").first).to_have_attribute(
        "href", re.compile("num-heads-list-length/$"))
    shoot(tab.page, "errors-lookup")
    assert tab.errors == [] and tab.outside == []


def test_search_finds_the_entry_for_a_pasted_message(visit, site_url):
    tab = visit()
    tab.page.goto(site_url + "errors/", wait_until="load")
    box = tab.page.locator("input.md-search__input")
    box.click()
    box.fill(f"ValueError: {MESSAGE}"[:-1])
    box.press_sequentially(MESSAGE[-1])  # Material reacts to key events
    first = tab.page.locator(".md-search-result__item").first
    expect(first.locator("a").first).to_have_attribute("href", re.compile(re.escape(ENTRY)))
    shoot(tab.page, "search")
    assert tab.errors == [] and tab.outside == []


# -- issue 23: what a reader sees on the real site ---------------------------------------------------

# `real_site` (tests/site/sitekb.py): the repository's site, built once per session.


# The page's text outside code (which may hold backticks and braces as written): every text node.
VISIBLE_TEXT = """() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const out = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("code, pre, kbd, samp, textarea, script, style, noscript, svg")) continue;
    out.push(node.nodeValue);
  }
  return out.join(" ");
}"""
# Markup, character references and Markdown escapes that a reader should never see as text.
LITERAL = re.compile(r"</?(?:code|span|a|p|div|em|strong|b|i|details|summary)\b[^<>]*>|&#?[0-9A-Za-z]+;"
                     r"|\\[\\{}`_*\[\]()#+.!|<>~-]|`")


# Elements of the content wider than the viewport, unless a frame that scrolls (and fits) holds them.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth, out = [];
  const fits = (r) => r.left >= -1 && r.right <= width + 1;
  for (const el of document.querySelectorAll('.md-content *')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || fits(r)) continue;
    let frame = el.parentElement, framed = false;
    for (; frame && frame !== document.body; frame = frame.parentElement) {
      const overflow = getComputedStyle(frame).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && fits(frame.getBoundingClientRect())) { framed = true; break; }
    }
    if (!framed) out.push(`${el.tagName.toLowerCase()}.${el.className && el.className.baseVal !== undefined
      ? el.className.baseVal : el.className} ${Math.round(r.left)}..${Math.round(r.right)} of ${width}`);
  }
  return out.slice(0, 12);
}"""


# A page's scripts are done writing: every paste box has said what its index holds (or that it could not load it),
# which it does once the index has come and its matcher is built. The network's going quiet (`networkidle`) is not
# that: the index is read from the browser's cache, and building the matcher outlasted the quiet's 500 ms at load 20.
SETTLED = """() => [...document.querySelectorAll('.ekb-lookup')].every(
  box => (box.querySelector('.ekb-lookup__status') || {}).textContent)"""


PHONE, DESK = {"width": 390, "height": 844}, {"width": 1280, "height": 900}
# One page of each kind of component the site's scripts touch: the paste box (home, errors/), an entry's tabs,
# badges and release strip, the migration table, the verification heatmap.
KINDS = ("", "errors/", ENTRY, "migration/", "verification/")


def walk(tab, url: str, paths: list[str], kinds: tuple[str, ...]) -> dict[str, dict[str, object]]:
    """Each of `paths` loaded once, at a phone's width: the markup or escapes its text shows ("shown") and what in its
    content runs past the screen ("overflow"); each of `kinds` (which must be among `paths`) read once its requests
    are over and its paste boxes have written their status (`SETTLED`), and again at a desk's width, where its text
    must be the same ("text at a desk"). Problem → page → what."""
    problems: dict[str, dict[str, object]] = {"shown": {}, "overflow": {}, "text at a desk": {}}
    settled: dict[str, str] = {}  # a kind's text at a phone's width
    tab.page.set_viewport_size(PHONE)
    for path in paths:
        tab.page.goto(url + path, wait_until="networkidle" if path in kinds else "load")
        if path in kinds:
            tab.page.wait_for_function(SETTLED)
        text = tab.page.evaluate(VISIBLE_TEXT)
        if path in kinds:
            settled[path] = text
        found = sorted({m.group() for m in LITERAL.finditer(text)})
        if found:
            problems["shown"][path] = found[:8]
        overflow = tab.page.evaluate(OVERFLOW)
        if overflow:
            problems["overflow"][path] = overflow[:3]
    tab.page.set_viewport_size(DESK)
    for path in kinds:
        tab.page.goto(url + path, wait_until="networkidle")
        tab.page.wait_for_function(SETTLED)
        desk = tab.page.evaluate(VISIBLE_TEXT)
        found = sorted({m.group() for m in LITERAL.finditer(desk)})
        if found:  # what the page's scripts write once their requests are over counts too
            problems["shown"].setdefault(path, found[:8])
        if desk != settled[path]:
            problems["text at a desk"][path] = sorted(set(desk.split()) ^ set(settled[path].split()))[:8]
    return {name: pages for name, pages in problems.items() if pages}


def test_no_page_of_the_real_site_shows_markup_or_escape_text_or_overflows_a_phone(chromium, real_site):
    """One walk of every page, each loaded once at a phone's width (`walk`): its text (every text node outside code)
    shows no markup or escape, and nothing in its content runs past the screen (a not-applicable badge's reason
    naming a long module path ran 80 px past a 390 px screen on one entry page, not on the sample).

    The text is the page's DOM, which no width changes: it was read at a desk's width before, in a second layout
    of every page (a third of the walk's CPU), and was the same on all 130 pages. That premise is checked on one
    page of each kind (`KINDS`), loaded at a desk's width: a script that wrote other text at another width would
    show there (`test_text_a_script_writes_at_a_desk_s_width_alone_is_caught`).

    The walk reads no request and no console line, so its tab routes nothing (`WalkTab`: a routed tab has no HTTP
    cache and sends every request through Python) and its server refuses the search index (`serve_for_walk`):
    benchmarks/page_walk.py, 102 s of CPU routed, 65 s unrouted, 134 pages, load 7-14."""
    site, _ = real_site
    paths = sorted(p.relative_to(site).as_posix().removesuffix("index.html") for p in site.rglob("index.html"))
    assert len(paths) > 100 and sum(path.startswith("errors/") for path in paths) > 90
    assert set(KINDS) <= set(paths), sorted(set(KINDS) - set(paths))
    tab = WalkTab(chromium)
    try:
        with serve_for_walk(site) as url:
            problems = walk(tab, url, paths, KINDS)  # the walk reads each page's text
    finally:
        tab.close()
    assert not problems, {name: dict(list(pages.items())[:30]) for name, pages in problems.items()}


def test_text_a_script_writes_at_a_desk_s_width_alone_is_caught(visit, site_url):
    """The walk's premise, broken on purpose: a page whose script writes markup as text only on a wide screen."""
    tab = visit().without_search_index()

    def wide_only(route) -> None:
        page = route.fetch().text().replace(
            "</body>", "<script>if (innerWidth > 1000) document.body.append('<code>wide</code>')</script></body>")
        route.fulfill(status=200, content_type="text/html", body=page)

    tab.page.route(site_url + ENTRY, wide_only)
    problems = walk(tab, site_url, ["", ENTRY], ("", ENTRY))
    assert problems == {"shown": {ENTRY: ["</code>", "<code>"]}, "text at a desk": {ENTRY: ["<code>wide</code>"]}}, \
        problems
    assert walk(tab, site_url, ["", ENTRY], ()) == {}  # the phone's walk alone never sees it


def test_the_walk_s_own_tab_and_server_see_what_a_routed_tab_sees(chromium, tmp_path):
    """The real site's walk runs in a tab that routes nothing, over a server of its own (`WalkTab`, `serve_for_walk`):
    there too, markup shown as text, content past a phone's screen and text a script writes at a desk's width alone
    are found, a page's script and style come and run, and the search index is refused. A paste box's status, which
    its script writes once its index has come and its matcher is built, is read however long after the network went
    quiet that is (`SETTLED`: here 1.5 s, with no request left). The tab reaches no other host."""
    (tmp_path / "wide").mkdir()
    (tmp_path / "search").mkdir()
    (tmp_path / "search" / "search_index.json").write_text('{"docs": []}')
    (tmp_path / "page.js").write_text("if (innerWidth > 1000) document.body.append('<em>wide</em>');\n"
                                      "fetch('/search/search_index.json').then(r => document.title = 'index ' + r.status);")
    (tmp_path / "page.css").write_text("body { margin: 0 } .far { margin-left: 500px; width: 100px; height: 10px; }")
    head = '<link rel="stylesheet" href="/page.css"><script src="/page.js" defer></script>'
    (tmp_path / "index.html").write_text(f'<html><head>{head}</head><body><div class="md-content"><p>plain</p>'
                                         f'</div></body></html>')
    (tmp_path / "wide" / "index.html").write_text(
        f'<html><head>{head}</head><body><div class="md-content"><p>&lt;code&gt;x</p><div class="far">far</div>'
        f'</div></body></html>')
    (tmp_path / "box").mkdir()
    (tmp_path / "box" / "index.html").write_text(
        '<html><body><div class="md-content"><div class="ekb-lookup"><p class="ekb-lookup__status"></p></div></div>'
        "<script>setTimeout(() => document.querySelector('.ekb-lookup__status').textContent = '<em>late</em>', 1500)"
        "</script></body></html>")
    tab = WalkTab(chromium)
    try:
        with serve_for_walk(tmp_path) as url:
            problems = walk(tab, url, ["", "box/", "wide/"], ("", "box/", "wide/"))
            assert tab.page.title() == "index 404"  # the search index refused, the script run
            failed: list[tuple[str, str | None]] = []
            tab.page.on("requestfailed", lambda request: failed.append((request.url, request.failure)))
            tab.page.evaluate("""async () => { for (const url of ['http://10.255.255.1/a', 'http://example.com/b'])
                                                 await fetch(url).catch(() => null); }""")
    finally:
        tab.close()
    assert problems == {"shown": {"wide/": ["<code>"], "": ["</em>", "<em>"], "box/": ["</em>", "<em>"]},
                        "overflow": {"wide/": ["div.far 500..600 of 390"]},
                        "text at a desk": {"": ["<em>wide</em>"], "wide/": ["<em>wide</em>"]}}, problems
    # no other host, by name or by address: refused at Chromium's resolver (CHROMIUM_ARGS), before any connection
    assert failed == [("http://10.255.255.1/a", "net::ERR_NAME_NOT_RESOLVED"),
                      ("http://example.com/b", "net::ERR_NAME_NOT_RESOLVED")], failed


def test_the_migration_table_and_also_seen_as_render_as_code(visit, reader_site):
    """Over `reader_site`, which sends the real search index once a session: `real_site`'s server sends it to every
    page, and Material's worker indexes all of it (3.1 MB) on each of the three pages read here, which never search
    (benchmarks/site_tests.py --index-site: 3.2 s of CPU against 2.5 s)."""
    _, url = reader_site
    v = visit()
    v.page.goto(url + "migration/", wait_until="load")
    rows = v.page.locator("article table:not(.ekb-heatmap) tbody tr")
    assert rows.count() >= 50
    for index in range(rows.count()):
        cells = rows.nth(index).locator("td")
        if cells.nth(0).inner_text() != "—":
            assert cells.nth(0).locator("code").count() == 1, cells.nth(0).inner_html()
    replacements = v.page.locator("article table:not(.ekb-heatmap) tbody tr td:nth-child(5) code")
    assert replacements.count() >= 40
    assert "past_key_values.get_seq_length()" in replacements.all_inner_texts()
    titles = v.page.locator("article table:not(.ekb-heatmap) tbody tr td:nth-child(2) a code").all_inner_texts()
    assert "DynamicCache.__init__() got an unexpected keyword argument 'config'" in titles
    v.page.goto(url + "errors/transformers/cache-only-has-0-layers/", wait_until="load")
    also = v.page.locator("#also-seen-as ~ ul li > code").all_inner_texts()
    assert also and all("\\" not in code and "&#" not in code for code in also), also
    assert any("{" in code for code in also) or all("{" not in code for code in also)
    v.page.goto(url + "errors/transformers/get-max-length-removed/", wait_until="load")
    meta = v.page.locator("article p.ekb-meta")
    assert meta.locator("code").count() >= 1 and "`" not in meta.inner_text()  # the replacement, as code


# -- issue 23: the paste box takes a paste bounded, and never drops one -------------------------------

def paste(tab, url: str, text: str) -> None:
    """A real paste (Ctrl+V from the system clipboard) into the box on `url`."""
    origin = re.match(r"https?://[^/]+", url).group()
    tab.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    tab.page.goto(url, wait_until="load")
    tab.page.evaluate("text => navigator.clipboard.writeText(text)", text)
    tab.page.locator(".ekb-lookup__input").click()
    tab.page.keyboard.press("Control+V")


def test_a_megabyte_paste_reaches_the_box_as_its_last_64_kib(visit, site_url):
    """1 MB of `x\\0` froze the page for minutes: the textarea laid it all out. The box keeps the
    paste's last 64 KiB (the lookup's cap) and says so; the page answers at once."""
    tab = visit()
    paste(tab, site_url + "errors/", "x\0" * 500_000 + "\n" + f"ValueError: {MESSAGE}\n")
    expect(tab.page.locator(".ekb-lookup__hit a.ekb-lookup__title").first).to_have_attribute(
        "href", re.compile(re.escape(ENTRY) + "$"))
    length = tab.page.locator(".ekb-lookup__input").evaluate("box => box.value.length")
    assert 0 < length <= 65_536
    expect(tab.page.locator(".ekb-lookup__status")).to_contain_text("the box keeps its last")
    assert tab.errors == [] and tab.outside == []


def test_a_paste_whose_last_line_is_longer_than_64_kib_is_not_dropped(visit, site_url):
    """One line over 64 KiB, ending in a line break: the line is cut, never the whole paste."""
    tab = visit()
    paste(tab, site_url + "errors/", "Traceback (most recent call last):\n" + "x " * 40_000 + f"ValueError: {MESSAGE}\n")
    expect(tab.page.locator(".ekb-lookup__hit a.ekb-lookup__title").first).to_have_attribute(
        "href", re.compile(re.escape(ENTRY) + "$"))
    value = tab.page.locator(".ekb-lookup__input").input_value()
    assert value.endswith(f"ValueError: {MESSAGE}\n") and len(value) <= 65_536
    assert tab.errors == [] and tab.outside == []


def test_a_short_paste_goes_in_as_it_is(visit, site_url):
    tab = visit()
    paste(tab, site_url + "errors/", TRACEBACK)
    expect(tab.page.locator(".ekb-lookup__hit").first).to_contain_text("{len(self.layers)} = 28")
    assert tab.page.locator(".ekb-lookup__input").input_value() == TRACEBACK
    expect(tab.page.locator(".ekb-lookup__status")).to_have_text("")


def test_a_tab_that_routes_nothing_still_sees_every_request_to_another_host_and_every_error(visit, tmp_path):
    """`Visit` reads requests and the console from the browser's events, and routes nothing (a routed tab loses the
    browser's cache): a request off 127.0.0.1 from the page, from its markup, from a worker (Material's search runs in
    one) or from a second tab is still recorded (and fails at Chromium's resolver, `CHROMIUM_ARGS`), and so are a
    console error and an uncaught exception, so a test asserting `outside == []` and `errors == []` still fails."""
    (tmp_path / "worker.js").write_text("fetch('http://10.255.255.2/from-worker').catch(() => null);")
    (tmp_path / "index.html").write_text(
        '<html><body><img src="http://example.org/img.png"><script>'
        "new Worker('/worker.js'); fetch('http://example.com/fetch').catch(() => null);"
        "window.open('/second.html'); console.error('said wrong'); setTimeout(() => { throw new Error('thrown') });"
        "</script></body></html>")
    (tmp_path / "second.html").write_text('<html><body><img src="http://example.net/second.png"></body></html>')
    tab = visit()
    with serve(tmp_path) as url:
        tab.page.goto(url, wait_until="load")
        expected = {"http://example.org/img.png", "http://example.com/fetch", "http://10.255.255.2/from-worker",
                    "http://example.net/second.png"}
        for _ in range(100):
            if expected <= set(tab.outside) and len(tab.errors) >= 2:
                break
            tab.page.wait_for_timeout(100)
    assert set(tab.outside) == expected, tab.outside
    assert "said wrong" in tab.errors and any("thrown" in error for error in tab.errors), tab.errors
