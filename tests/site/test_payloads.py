"""A knowledge base made of XSS payloads (tests/fixtures/payload_kb) builds strictly, and no
page of it can run script in a reader's browser: no dialog fires, no element holds an `on*`
attribute or a `javascript:`/`data:`/`vbscript:` URL, in the pages, the paste box's cards and
the search results; the JSON API and the search index hold no markup; and the payloads still
read as the text the author wrote (escaped, not deleted)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.site.sitekb import ROOT, _Kept, free_port, mkdocs_build, serve, site_project, snippet_hash, write_report

PAYLOAD_KB = ROOT / "tests" / "fixtures" / "payload_kb"
IDS = sorted(path.stem for path in (PAYLOAD_KB / "docs" / "errors" / "transformers").glob("*.yml"))
TITLE = "<img src=x onerror=alert('title')> \"><svg/onload=alert('title2')> </title><script>alert('title3')</script>"
HOSTILE = "<img src=x onerror=alert('report')><script>alert('report-script')</script>\"'><svg onload=alert(1)>"


def make_payload_project(folder: Path, site_url: str | None = None) -> Path:
    """The repository's site config with the payload entries, and a report full of payloads."""
    site_project(folder, ids=(), site_url=site_url)
    shutil.copytree(PAYLOAD_KB / "docs" / "errors", folder / "docs" / "errors", dirs_exist_ok=True)
    shutil.copytree(PAYLOAD_KB / "snippets", folder / "snippets")
    checks = []
    # payload-evidence-and-containers stays unverified: its prose claims the evidence it lacks.
    for entry_id in (one for one in IDS if one != "payload-evidence-and-containers"):
        for role, file in (("before", "before.py"), ("after", "after.py"), ("guard:guard", "guard.py")):
            for target, outcome in (("bundled", "pass"), ("upstream", "fail")):
                checks.append({
                    "id": f"{entry_id}::{role}[{target}-cpu]", "entry": entry_id, "role": role,
                    "snippet": f"snippets/{entry_id}/{file}", "snippet_sha256": snippet_hash(folder, entry_id, file),
                    "target": target, "device": "cpu", "outcome": outcome,
                    "code": ("raised-as-documented" if role == "before" else "ran-clean") if outcome == "pass"
                    else "message-differs", "expected": HOSTILE, "reason": f"{HOSTILE} [r](javascript:alert(2))",
                    "verified_at": "2026-11-30T10:00:00+00:00",
                    "exception": {"type": "ValueError", "message": HOSTILE, "traceback": f"Traceback\n```\n{HOSTILE}\n"}
                    if role == "before" else None,
                    "environment": {"python": HOSTILE, "torch": HOSTILE, "transformers": HOSTILE, "platform": HOSTILE,
                                    "cuda_device": HOSTILE}})
    write_report(folder, checks)
    return folder


def build_payload_site(folder: Path, site: Path, site_url: str | None = None) -> Path:
    """`site`, holding the payload knowledge base (`make_payload_project` in `folder`) as MkDocs builds it: the one
    way the tests (`payload_site`) and benchmarks/browser_tabs.py build it. The payloads' own links go nowhere, and
    MkDocs says so (a strict build of this knowledge base fails on them, as it should); nothing else may warn: the
    report and every page were read."""
    project = make_payload_project(folder, site_url=site_url)
    result = mkdocs_build(project / "mkdocs.yml", site, strict=False)
    assert result.returncode == 0, f"mkdocs build failed:\n{result.stderr}"
    warnings = [line for line in result.stderr.splitlines() if line.startswith("WARNING")]
    assert warnings and all("contains an unrecognized relative link" in line for line in warnings), warnings
    return site


@pytest.fixture(scope="module")
def payload_site(tmp_path_factory):
    """(site folder, URL): the payload knowledge base built (`build_payload_site`) and served on 127.0.0.1."""
    port = free_port()
    site = build_payload_site(tmp_path_factory.mktemp("payload-kb"), tmp_path_factory.mktemp("payload-site"),
                              site_url=f"http://127.0.0.1:{port}/")
    with serve(site, _Kept, port=port) as url:
        yield site, url


# Every element's attributes: event handlers, and script-capable URLs once the browser has
# decoded the value (entities, control characters and spaces a URL parser would skip).
AUDIT = """() => {
  const found = [];
  const script = /^(?:javascript|data|vbscript):/i;
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith("on")) found.push(`${el.tagName.toLowerCase()} ${name}="${attr.value.slice(0, 80)}"`);
      if (script.test(attr.value.replace(/[\\u0000-\\u0020\\u007f-\\u009f]/g, "")))
        found.push(`${el.tagName.toLowerCase()} ${name}="${attr.value.slice(0, 80)}"`);
    }
  }
  return found;
}"""


def pages(site: Path) -> list[str]:
    return sorted(path.relative_to(site).as_posix().removesuffix("index.html") for path in site.rglob("*.html"))


def test_the_payload_kb_is_valid_and_builds_strictly(payload_site):
    site, _ = payload_site
    for entry_id in IDS:
        assert (site / "errors" / "transformers" / entry_id / "index.html").is_file()


@pytest.mark.browser
def test_no_page_can_run_script(visit, payload_site):
    site, url = payload_site
    seen: dict[str, list[str]] = {}
    dialogs: list[str] = []
    v = visit()
    v.page.on("dialog", lambda dialog: (dialogs.append(f"{v.page.url}: {dialog.message}"), dialog.dismiss()))
    for path in pages(site):
        v.page.goto(url + path, wait_until="load")
        v.page.wait_for_timeout(150)  # handlers that fire on load (onerror, onload, ontoggle) have fired
        found = v.page.evaluate(AUDIT)
        if found:
            seen[path] = found
    assert not dialogs, dialogs
    assert not seen, json.dumps(seen, indent=1)[:6000]
    assert v.outside == [], v.outside  # no image (nor anything else) from another host


@pytest.mark.browser
def test_paste_box_cards_and_search_results_cannot_run_script(visit, payload_site):
    _, url = payload_site
    v = visit()
    dialogs: list[str] = []
    v.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    v.page.goto(url, wait_until="load")
    box = v.page.locator("textarea.ekb-lookup__input")
    box.fill("ValueError: plain message 12 with <b>markup</b>")
    v.page.wait_for_selector(".ekb-lookup__hit")
    hit = v.page.locator(".ekb-lookup__title").first
    assert hit.text_content() == "Prose payloads: <b>bold?</b> & <i onclick=alert('title-i')>i</i>"
    assert v.page.evaluate(AUDIT) == []
    search = v.page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("onerror alert", delay=20)
    v.page.wait_for_selector(".md-search-result__item")
    v.page.wait_for_timeout(300)
    assert v.page.evaluate(AUDIT) == []
    assert not dialogs, dialogs


@pytest.mark.browser
def test_payloads_still_read_as_the_text_written(visit, payload_site):
    _, url = payload_site
    v = visit()
    v.page.goto(url + "errors/transformers/payload-title-and-message/", wait_until="load")
    assert v.page.title().startswith(TITLE)
    assert v.page.locator("h1").first.text_content().startswith(TITLE)
    assert TITLE in v.page.locator(".md-header__topic").last.text_content()
    description = v.page.locator('meta[name="description"]').get_attribute("content")
    assert description.startswith("ValueError raised from Cache.x<script>: \" onmouseover=\"alert('description')\"")
    body = v.page.locator("article").text_content()
    for text in ["<script>alert('script')</script>", "<img/src/onerror=alert('img-slash')>",
                 "<svg onload=alert('svg')></svg>", "<a href=\" javascript:alert('a-space')\">a-space</a>"]:
        assert text in body, text
    v.page.goto(url + "errors/transformers/payload-prose/", wait_until="load")
    assert v.page.locator("article strong", has_text="Markdown").count() >= 1  # ordinary Markdown still works
    assert v.page.locator("article code", has_text="code").count() >= 1
    v.page.goto(url + "errors/transformers/payload-code-and-links/", wait_until="load")
    assert v.page.locator('article a[href="https://example.org/ok"]').count() >= 1
    body = v.page.locator("article").text_content()
    assert "# <img/src/onerror=alert('cut-hash')>" in body
    assert "<img src=x onerror=alert('tilde-fence-is-code')> shows as code" in body
    v.page.goto(url + "tags/", wait_until="load")
    assert TITLE in v.page.locator("article").text_content()


def test_json_api_and_search_index_hold_no_markup(payload_site):
    site, _ = payload_site
    # Material renders the index's text as HTML: escaped text (&lt;img ...) is fine, a tag is not.
    markup = re.compile(r"<\s*/?\s*(?:script|img|svg|math|iframe|object|embed|details|a|i|b)\b"
                        r"|<[a-z][^<>]*\s(?:on[a-z]+\s*=|(?:href|src)\s*=\s*[\"']?\s*(?:javascript|data|vbscript):)", re.I)
    for path in sorted((site / "api" / "errors").glob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"[<>]", text), path.name  # escaped as \\u003c / \\u003e: same data, inert text
        json.loads(text)
    document = json.loads((site / "api" / "errors" / "payload-title-and-message.json").read_text(encoding="utf-8"))
    assert document["title"].startswith(TITLE)  # the data is the author's, unchanged
    search = (site / "search" / "search_index.json").read_text(encoding="utf-8")
    for doc in json.loads(search)["docs"]:
        for field in ("title", "text"):
            assert not markup.search(doc[field]), (doc["location"], field, markup.search(doc[field]).group())


def test_render_output_is_inert_markdown_for_any_engine(tmp_path):
    """`errorkb render` publishes Markdown for other engines, without the site's sanitiser: its
    pages must render to no markup, handler or script URL on their own (Python-Markdown with
    the site's extensions stands in for the engine), and its JSON must hold no markup."""
    from errorkb.cli import main
    from tests.site.test_inert import audit, site_markdown

    project = tmp_path / "kb"
    project.mkdir()
    make_payload_project(project)
    out = tmp_path / "out"
    assert main(["--root", str(project), "render", "--out", str(out)]) == 0
    rendered = sorted(out.rglob("*.md"))
    assert len(rendered) >= len(IDS) + 5
    for page in rendered:
        body = re.sub(r"\A---\n.*?\n---\n", "", page.read_text(encoding="utf-8"), flags=re.S)
        found, _ = audit(site_markdown().convert(body))
        assert not found, (page.relative_to(out).as_posix(), found)
    for document in (out / "api").rglob("*.json"):
        assert not re.search(r"[<>]", document.read_text(encoding="utf-8")), document.name


# -- issue 23: what `errorkb render --out` writes is safe in a plain MkDocs Material build ----------

def plain_material_config(out: Path, site_url: str) -> Path:
    """A plain MkDocs Material site over `errorkb render --out`'s files: no errorkb plugin (so no
    sanitiser), the repository's Markdown extensions, the assets listed as any site would."""
    import yaml

    from errorkb.site import files as site

    extensions = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["markdown_extensions"]
    config = {"site_name": "plain", "site_url": site_url, "docs_dir": "docs_md", "use_directory_urls": True,
              "theme": {"name": "material", "font": False, "features": ["search.suggest", "search.highlight"]},
              "plugins": ["search", "tags"], "markdown_extensions": extensions,
              "extra_css": site.STYLES, "extra_javascript": site.SCRIPTS}
    path = out / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def plain_site(tmp_path_factory):
    """(site folder, URL): the payload knowledge base rendered with `errorkb render --out` and built
    by plain MkDocs Material, served on 127.0.0.1."""
    from errorkb.cli import main

    port = free_port()
    project = make_payload_project(tmp_path_factory.mktemp("payload-plain-kb"))
    out = tmp_path_factory.mktemp("payload-plain")
    assert main(["--root", str(project), "render", "--out", str(out / "docs_md")]) == 0
    (out / "docs_md" / "index.md").write_text("# Plain\n\n[All errors](errors/index.md)\n", encoding="utf-8")
    site = out / "site"
    result = mkdocs_build(plain_material_config(out, f"http://127.0.0.1:{port}/"), site, strict=False)
    assert result.returncode == 0, result.stderr
    with serve(site, _Kept, port=port) as url:
        yield site, url


@pytest.mark.browser
def test_a_plain_material_build_of_render_out_runs_no_script(visit, plain_site):
    """0 dialogs, 0 handler attributes, 0 script URLs on every page, the paste box's cards and the
    search results included, with nothing of errorkb's plugin in the build."""
    site, url = plain_site
    v = visit()
    dialogs: list[str] = []
    v.page.on("dialog", lambda dialog: (dialogs.append(f"{v.page.url}: {dialog.message}"), dialog.dismiss()))
    seen: dict[str, list[str]] = {}
    visited = pages(site)
    assert len(visited) >= len(IDS) + 5
    for path in visited:
        v.page.goto(url + path, wait_until="load")
        v.page.wait_for_timeout(150)
        found = v.page.evaluate(AUDIT)
        if found:
            seen[path] = found
    v.page.goto(url + "errors/", wait_until="load")
    v.page.locator("textarea.ekb-lookup__input").fill("ValueError: plain message 12 with <b>markup</b>")
    v.page.wait_for_selector(".ekb-lookup__hit")
    search = v.page.locator("input.md-search__input")
    search.click()
    search.press_sequentially("onerror alert", delay=20)
    v.page.wait_for_selector(".md-search-result__item")
    v.page.wait_for_timeout(300)
    if found := v.page.evaluate(AUDIT):
        seen["errors/ (paste box and search)"] = found
    assert not dialogs, dialogs
    assert not seen, json.dumps(seen, indent=1)[:6000]
    assert v.outside == [], v.outside  # no image (nor anything else) from another host


@pytest.mark.browser
@pytest.mark.parametrize("which", ["plugin", "plain"])
def test_prose_cannot_pose_as_the_pages_evidence(visit, payload_site, plain_site, which):
    """The entry is "not verified"; its prose says otherwise in every form it could: no success
    admonition, no badge but the page's own, one element with id `message`."""
    _, url = payload_site if which == "plugin" else plain_site
    v = visit()
    v.page.goto(url + "errors/transformers/payload-evidence-and-containers/", wait_until="load")
    article = v.page.locator("article")
    assert article.locator(".admonition.success, details.success, .admonition.failure, details.failure").count() == 0
    assert v.page.locator("[id='message']").count() == 1
    assert v.page.locator("#message.ekb-message").count() == 1
    # nothing ran: the page's own badge, one 'not run' folded over every target and device, and no other
    assert v.page.locator(".ekb-badge").count() == v.page.locator(".ekb-badges > .ekb-badge--folded").count() == 1
    assert article.locator(".tabbed-set").count() == 1  # the template's Before/After, and no other
    assert "Ran clean when verified (bundled · cpu, 2026-11-30)" in article.text_content()  # shown as text
