"""Page content and evidence rules, without MkDocs: errorkb.site.evidence, errorkb.site.render, `errorkb render`."""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from types import SimpleNamespace

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.results.report import read_reports
from errorkb.site import evidence, render
from errorkb.site import files as site
from tests.site.sitekb import record, write_report

ENTRY = "head-dim-list-length"
FILES = {"before": "before.py", "after": "after.py", "guard:guard_check_lengths": "guard_check_lengths.py",
         "guard:guard_per_layer_from_config": "guard_per_layer_from_config.py"}
CAPTURED = {"type": "ValueError", "message": "`head_dim` was provided as a list of length 12, but the Cache "
            "currently has 12 layers", "traceback": "Traceback (most recent call last):\n  File \"before.py\"\n"
            "ValueError: `head_dim` was provided as a list of length 12, but the Cache currently has 12 layers\n"}


def all_pass(project, **kwargs) -> list[dict]:
    return [record(project, ENTRY, role, file, exception=CAPTURED if role == "before" else None, **kwargs)
            for role, file in FILES.items()]


def pages_of(project):
    loaded = load_project_entries(load_project(project))
    reports, _ = read_reports(project / "reports", ("cpu", "cuda"))
    return site.site_files(load_project(project), loaded, reports)


def page_for(project, entry_id=ENTRY):
    pages, _ = pages_of(project)
    return next(page for page in pages if page.entry.id == entry_id)


def badge(page, target, device) -> evidence.Badge:
    return next(b for b in render.badges(page) if (b.target, b.device) == (target, device))


def test_fresh_passing_checks_make_a_verified_badge_with_date_and_versions(project):
    write_report(project, all_pass(project))
    b = badge(page_for(project), "bundled", "cpu")
    assert (b.outcome, b.stale, b.date) == ("pass", False, "2026-11-30")
    assert "torch 2.13.0+cpu" in b.versions and "Python 3.11.7" in b.versions


def test_no_report_means_not_run_everywhere_never_a_pass(project):
    assert {b.outcome for b in render.badges(page_for(project))} == {"not-run"}
    assert len(render.badges(page_for(project))) == 4  # bundled/upstream × cpu/cuda


def test_an_edited_snippet_makes_the_badge_stale(project):
    write_report(project, all_pass(project))
    (project / "snippets" / ENTRY / "after.py").write_text("print('edited')\n")
    b = badge(page_for(project), "bundled", "cpu")
    assert b.outcome == "pass" and b.stale and "stale" in b.label


def test_a_stale_badge_keeps_its_classes_and_words_apart(project):
    """A template literal that starts with a space (`' ekb-stale'`, `' · '`) keeps the space: the
    escaping once stripped it, so the class read `ekb-passekb-stale` and the date `stale· 2026`."""
    write_report(project, all_pass(project))
    (project / "snippets" / ENTRY / "after.py").write_text("print('edited')\n")
    _, files = pages_of(project)
    stale = [(f.path, classes) for f in files if f.page
             for classes in map(html.unescape, re.findall(r'class="(ekb-(?:badge|mini|cell) [^"]*)"', f.content))
             if "stale" in classes]
    assert {path for path, _ in stale} >= {f"errors/transformers/{ENTRY}.md", "errors/index.md", "verification.md"}
    for path, classes in stale:
        assert "ekb-stale" in classes.split(), (path, classes)
    text = "\n".join(html.unescape(f.content) for f in files if f.page)
    assert not re.search(r"stale·|ekb-passekb", text)


def test_a_failed_check_fails_the_badge_and_says_why(project):
    checks = all_pass(project)
    checks[1] |= {"outcome": "fail", "reason": "raised ValueError again"}
    write_report(project, checks)
    b = badge(page_for(project), "bundled", "cpu")
    assert b.outcome == "fail" and "raised ValueError again" in b.detail


def test_cuda_not_run_is_shown_with_its_reason(project):
    write_report(project, all_pass(project) + [record(project, ENTRY, "before", "before.py", device="cuda",
                                                      outcome="not-run", reason="no CUDA device")])
    b = badge(page_for(project), "bundled", "cuda")
    assert b.outcome == "not-run" and b.detail == "no CUDA device"


def test_missing_results_for_some_snippets_is_partial(project):
    write_report(project, all_pass(project)[:2])
    assert badge(page_for(project), "bundled", "cpu").outcome == "partial"


def test_entry_page_has_every_section_and_the_captured_error(project):
    write_report(project, all_pass(project))
    markdown = render.render_entry(page_for(project), edit_url="https://example.test/edit/x.yml")
    for heading in ["## What it means", "## When it happens", "## Example fix", "## Solutions",
                    "## Defensive patterns", "## Prevention", "## Source", "## Versions", "## Verification",
                    "## Related errors"]:
        assert heading in markdown
    assert '=== "Before"' in markdown and '=== "After"' in markdown
    assert CAPTURED["message"] in markdown  # the text verification captured, not the template
    assert 'class="ekb-slot"' in markdown and "{len(self.layers)}" in markdown
    assert "a597f974857b3d92939971296bc0deb93d33d780/src/transformers/cache_utils.py#L1471" in markdown
    assert "https://example.test/edit/x.yml" in markdown and "api/errors/head-dim-list-length.json" in markdown
    assert "../transformers/num-heads-list-length.md" in markdown or "num-heads-list-length.md" in markdown


def test_unverified_page_says_so_instead_of_showing_an_error(project):
    markdown = render.render_entry(page_for(project))
    assert "Not verified yet" in markdown and CAPTURED["message"] not in markdown


def test_json_documents_carry_entry_evidence_and_index(project):
    write_report(project, all_pass(project))
    pages, files = pages_of(project)
    by_path = {f.path: f for f in files}
    document = json.loads(by_path[f"api/errors/{ENTRY}.json"].content)
    assert document["id"] == ENTRY and document["source"]["line"] == 1471
    assert {b["outcome"] for b in document["badges"] if b["target"] == "bundled" and b["device"] == "cpu"} == {"pass"}
    index = json.loads(by_path["api/errors/index.json"].content)
    assert {e["id"] for e in index["entries"]} == {"head-dim-list-length", "num-heads-list-length"}
    assert json.loads(by_path["api/schema/entry.json"].content)["title"] == "Entry"


def test_browse_pages_group_by_exception_and_by_api(project):
    _, files = pages_of(project)
    by_path = {f.path: f.content for f in files}
    assert "## <code>ValueError</code>" in by_path["errors/by-exception.md"]
    api = by_path["errors/by-api.md"]
    assert "## <code>Cache</code>" in api and "### <code>Cache.<wbr>early&#95;<wbr>initialization</code>" in api
    assert api.count("transformers/head-dim-list-length.md") == 1


def test_verification_page_lists_every_check_and_environment(project):
    write_report(project, all_pass(project))
    _, files = pages_of(project)
    page = next(f.content for f in files if f.path == "verification.md")
    assert page.count("<code>guard:") == 3  # every snippet of both entries has a row, checked or not
    assert "2.13.0+cpu" in page and "| 4 | 4 | 0 | 0 | 0 |" in page and page.count("| [") == 7


def test_render_command_writes_plain_markdown_and_json(project, tmp_path):
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "errorkb.cli", "--root", str(project), "render", "--out", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    page = (out / "errors" / "transformers" / f"{ENTRY}.md").read_text()
    assert page.startswith("---\ntitle: ") and "## What it means" in page
    assert json.loads((out / "api" / "errors" / "index.json").read_text())["entries"]
    assert (out / "assets" / "errorkb" / "lookup.js").is_file() and (out / "verification.md").is_file()
    assert "transformers/head-dim-list-length.md" in (out / "tags.md").read_text()  # links resolve without MkDocs


# -- inert prose ------------------------------------------------------------------------------

import markdown  # noqa: E402
import pytest  # noqa: E402

from errorkb.site.inert import inert  # noqa: E402


def to_html(text: str) -> str:
    md = markdown.Markdown(extensions=["attr_list", "md_in_html", "admonition", "pymdownx.superfences"])
    return md.convert(inert(text))


@pytest.mark.parametrize("attack", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>", "**x**{: onclick=\"alert(1)\" }",
    "para\n{: onclick=alert(1) }", "[a](javascript:alert(1))", "[a](JaVa\tScRiPt:alert(1))",
    "[r]: javascript:alert(1)\n\nsee [r]", "![i](data:text/html,<script>alert(1)</script>)",
    "``<b onmouseover=alert(1)>x</b>`", "\\`<img src=x onerror=alert(1)>\\`",
    "text ```\n\n<script>alert(1)</script>\n\n```", "<div markdown=\"1\" onclick=\"alert(1)\">x</div>",
    "&lt;script&gt;", "<a href=\"javascript:alert(1)\">a</a>",
])
def test_prose_cannot_produce_script_handlers_or_script_links(attack):
    import re

    html = to_html(attack)
    assert not re.search(r"<script|<[a-z][^>]*\son[a-z]+\s*=|<[a-z][^>]*(?:href|src)=\"\s*(?:javascript|data):", html, re.I), html


def test_code_and_ordinary_markdown_survive():
    html = to_html("Use `x < y` and `{len(a)}`, **bold**, [docs](https://example.test/a) and [page](../x.md).\n\n"
                   "```python\nif a < b:\n    pass\n```")
    import html as entities

    shown = entities.unescape(html)  # code spans are written with character references: the same text
    assert "<code>x < y</code>" in shown and "<code>{len(a)}</code>" in shown and "<strong>bold</strong>" in html
    assert 'href="https://example.test/a"' in html and 'href="../x.md"' in html and "&lt;" in html


def test_versions_section_shows_the_matrix_ranges(project):
    page = page_for(project)
    page.versions = render.VersionRange("5.5.1 – 5.24.0", "5.5.1 – 5.24.0", None, "5.24.0", 20, ("5.6.0",), "")
    markdown = render.render_entry(page)
    section = markdown.split("## Versions", 1)[1].split("\n## ", 1)[0]
    assert "**Raises in:** transformers 5.5.1 – 5.24.0 (measured)." in section
    assert "**Still raises** in the newest release tested (5.24.0)" in section
    assert "set-up failed): 5.6.0" in section and "20 upstream releases tested" in section
    assert "earlier releases took only ints" in section  # the entry's own notes follow
    assert render.entry_document(page)["versions"]["raises"] == "5.5.1 – 5.24.0"


def test_the_lookup_index_carries_wordings_releases_and_raise_lines(project):
    """api/errors/index.json: schema 1's fields, then what the lookup reads; and reading it back
    gives what the lookup builds from the entries themselves."""
    import shutil

    from errorkb.lookup import Known
    from errorkb.lookup.build import known_from_entries
    from tests.site.sitekb import ROOT

    (project / "reports" / "matrix").mkdir()
    shutil.copy(ROOT / "reports" / "matrix" / "transformers.json", project / "reports" / "matrix" / "transformers.json")
    pages, files = pages_of(project)
    index = json.loads(next(f for f in files if f.path == "api/errors/index.json").content)
    item = next(e for e in index["entries"] if e["id"] == ENTRY)
    own = {"releases": None, "device": None, "note": None, "words": True, "own": True, "main": True, "called": True}
    assert item["wordings"] == [{"message": item["message"], "exception": "ValueError", **own},
                                {"message": item["message"].replace("`", ""), "exception": "ValueError",
                                 **own}]  # as Markdown shows it
    assert item["diagnosis"]["frames"] == [{"file": "transformers/cache_utils.py",
                                            "function": "Cache.early_initialization"}]
    assert index["rules"]["patterns"] and index["runtime"]["packages"]
    assert item["recognised_by"] == []
    assert item["lines"]["path"] == "transformers/cache_utils.py"  # as installed, as tracebacks print it
    assert item["lines"]["by_release"]["5.15.1"] == 1471 and "5.0.0" not in item["lines"]["by_release"]
    assert {"raises_in", "last_good", "replacement", "replacement_since"} <= set(item)
    lines = {page.entry.id: dict(page.versions.by_release) for page in pages if page.versions}
    assert [Known.from_index(e) for e in index["entries"]] == known_from_entries([p.entry for p in pages], lines,
                                                                                 pages[0].library, render.site_url)


def test_a_related_link_declared_once_shows_on_both_pages(tmp_path):
    """A lists B: B's page links back to A, although B's file names no related entry."""
    from tests.kb import VALID_ENTRY, make_project

    a = VALID_ENTRY.format(id="entry-a").replace("related: []", "related: [entry-b]")
    b = VALID_ENTRY.format(id="entry-b")
    make_project(tmp_path, entries={"entry-a.yml": a, "entry-b.yml": b})
    loaded = load_project_entries(load_project(tmp_path))
    pages = {page.entry.id: page for page in render.build_pages(load_project(tmp_path), loaded.entries, {})}
    assert [e.id for e in pages["entry-a"].related] == ["entry-b"]
    assert [e.id for e in pages["entry-b"].related] == ["entry-a"]
    assert "entry-a" in render.render_entry(pages["entry-b"])


def test_an_entry_that_does_not_load_gets_a_page_of_its_problems_with_its_lines_escaped(project):
    path = project / "docs/errors/transformers/num-heads-list-length.yml"
    path.write_text(path.read_text().replace("meaning: |", "meening: |", 1)
                    + "notes: <script>window.pwned=1</script>\nnotes: twice\n")
    project_ = load_project(project)
    loaded = load_project_entries(project_)
    (page,) = site.problem_pages(project_, loaded)
    assert page.path == "errors/transformers/num-heads-list-length.md" and page.page
    assert page.source == "docs/errors/transformers/num-heads-list-length.yml"
    text = page.content
    line = next(i for i, t in enumerate(path.read_text().splitlines(), 1) if t.startswith("meening:"))
    assert f"num-heads-list-length.yml:{line}:1: unknown key 'meening' (did you mean" in text
    assert f"> {line} | meening: |" in text
    fenced = text.split("```")[1::2]  # the quoted YAML lines: a fence shows them as text
    assert text.count("<script>") == sum(block.count("<script>") for block in fenced) >= 1
    assert "duplicate key 'notes'" in text
    assert [p.path for p in site.problem_pages(project_, load_project_entries(load_project(project)))] == [page.path]


def test_a_broken_entry_file_leading_out_of_the_entries_folder_gets_no_page(project, tmp_path):
    """Its lines are another file's: a problem page would publish them."""
    outside = tmp_path / "secret.yml"
    outside.write_text("id: secret\ntoken: SECRET-TOKEN-123\n")
    (project / "docs/errors/transformers/linked.yml").symlink_to(outside)
    loaded = load_project_entries(load_project(project))
    assert any("linked.yml" in p.path for p in loaded.problems)
    assert site.problem_pages(load_project(project), loaded) == []


# -- issue 23: escaped where it is written, for any engine --------------------------------------

from collections import Counter  # noqa: E402
from html.parser import HTMLParser  # noqa: E402

from tests.site.test_inert import audit, site_markdown  # noqa: E402

PAYLOAD = ("<img src=x onerror=alert(1)> [x](javascript:alert(2)) **b** _i_ `c` {: onclick=alert(3) } | # h \\ "
           "&amp; ===<svg/onload=alert`4`> <a href=x>a</a> <details open>x</details> ) ( \"q\" 'q' ~~s~~ $m$ "
           "\n\n# heading\n- item\n!!! success \"Ran clean\"")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: Counter = Counter()

    def handle_starttag(self, tag, attrs):
        self.tags[(tag, dict(attrs).get("class", ""))] += 1


def tags_of(markdown_page: str) -> Counter:
    parser = _Tags()
    parser.feed(site_markdown().convert(re.sub(r"\A---\n.*?\n---\n", "", markdown_page, flags=re.S)))
    return parser.tags


def with_plain_values(page, value: str):
    """The page with every value the templates show as plain text (not as the author's Markdown)
    set to `value`, past the model's validation, as a bug upstream of the templates could."""
    import copy

    from errorkb.core.entry import Releases, Wording

    page = copy.copy(page)
    entry = page.entry
    source = entry.source.model_copy(update={"function": value, "path": value, "release": value, "commit": value})
    releases = Releases.model_construct(raises=value, last_good=value, replacement="`x()`",
                                        replacement_since=value)
    wording = Wording.model_construct(message="another {thing} wording", exception=value, releases=value,
                                      device=value, function=None, note="a note")
    page.entry = entry.model_copy(update={"exception": value, "source": source, "releases": releases,
                                          "also_seen_as": [wording], "tags": [value]})
    page.library = page.library.model_copy(update={"name": value})
    page.records = [r.model_copy(update={"target": value, "device": value, "verified_at": value, "environment": {
        "python": value, "runtime": value, "runtime_version": value, "library_version": value, "platform": value}})
        for r in page.records]
    page.versions = render.VersionRange(value, value, value, value, 3, (value,), value, ((value, value, 7),), value,
                                        "a reason", None, ((value, 7),), value, ((1, value),), (value,))
    page.snippet_paths = {role: value for role in page.snippet_paths}
    return page


def test_every_value_the_templates_interpolate_is_text_in_any_engine(project):
    """The same page with its plain values benign and hostile: Python-Markdown with the site's
    extensions (standing in for any engine, without the site's sanitiser) builds the same
    elements from both, finds no active element, handler or script URL, and shows the payload as
    text. Were one value interpolated raw, its markup would add elements here."""
    write_report(project, all_pass(project))
    page = page_for(project)
    benign = render.render_entry(with_plain_values(page, "benign"))
    hostile = render.render_entry(with_plain_values(page, PAYLOAD))
    assert tags_of(hostile) == tags_of(benign)
    found, text = audit(site_markdown().convert(re.sub(r"\A---\n.*?\n---\n", "", hostile, flags=re.S)))
    assert not found, found
    assert "<img src=x onerror=alert(1)>" in text and "===<svg/onload=alert`4`>" in text


@pytest.mark.parametrize("make", [render.render_index, render.render_by_exception, render.render_by_api,
                                  lambda pages: render.render_migration(pages, pages[0].library),
                                  lambda pages: render.render_verification(pages, pages[0].library),
                                  render.render_tags])
def test_the_site_wide_pages_interpolate_text_too(project, make):
    write_report(project, all_pass(project))
    pages, _ = pages_of(project)
    benign = make([with_plain_values(p, "benign") for p in pages])
    hostile = make([with_plain_values(p, PAYLOAD) for p in pages])
    assert tags_of(hostile) == tags_of(benign)
    found, _ = audit(site_markdown().convert(re.sub(r"\A---\n.*?\n---\n", "", hostile, flags=re.S)))
    assert not found, found


def test_no_template_interpolates_inside_a_markdown_code_span():
    """A value inside backticks is shown as its escape text (`&#95;`, `\\{`): code goes through
    the `code` filter, which writes a <code> element."""
    offenders = []
    for template in sorted(render.TEMPLATES.glob("*.j2")):
        for number, line in enumerate(template.read_text(encoding="utf-8").splitlines(), 1):
            without_tags = re.sub(r"\{%.*?%\}|\{#.*?#\}", "", line)
            if re.search(r"`[^`\n]*\{\{[^`\n]*`", without_tags):
                offenders.append(f"{template.name}:{number}: {line.strip()[:100]}")
    assert not offenders, offenders


def test_front_matter_is_escaped_where_it_is_written(project):
    """Material prints `title` and `description` unescaped: the file holds them escaped, so the
    plugin and any other engine read the same safe values; control characters are YAML escapes."""
    import yaml

    page = page_for(project)
    page.entry = page.entry.model_copy(update={"title": "<img src=x onerror=alert(1)> & \x85 \u202e",
                                               "exception": "<b>X</b>"})
    text = render.render_entry(page)
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["title"].startswith("&lt;img src=x onerror=alert(1)&gt; &amp; ") and "\u202e" in front["title"]
    assert front["description"].startswith("&lt;b&gt;X&lt;/b&gt; raised from ")
    front_matter = text.split("---\n")[1]
    assert "\x85" not in front_matter and "\u202e" not in front_matter  # \u0085 escapes: the file stays printable


def test_the_plugin_publishes_the_bytes_render_writes(project, tmp_path):
    """No page event of the plugin rewrites a generated page's Markdown or its front matter."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    from errorkb.cli import main
    from errorkb.site.plugin import ErrorkbPlugin

    out = tmp_path / "out"
    assert main(["--root", str(project), "render", "--out", str(out)]) == 0
    config = load_config(str(project / "mkdocs.yml"))
    config.plugins.on_startup(command="build", dirty=False)
    config = config.plugins.on_config(config)
    files = config.plugins.on_files(Files([]), config=config)
    generated = {f.src_uri: f.content_bytes for f in files if f.generated_by}
    assert generated and all((out / path).read_bytes() == content for path, content in generated.items())
    # The one Markdown event fills facts into hand-written pages only: a generated page (whose text
    # holds entry prose, `{{ errorkb.entries }}` included) passes through it unchanged.
    plugin = next(one for one in config.plugins.values() if isinstance(one, ErrorkbPlugin))
    for path, content in ((path, content) for path, content in generated.items() if path.endswith(".md")):
        markdown = content.decode("utf-8") + "\n{{ errorkb.entries }}\n"
        page = SimpleNamespace(file=SimpleNamespace(src_uri=path))
        assert plugin.on_page_markdown(markdown, page=page, config=config, files=files) == markdown


# -- issue 23: the page's own evidence cannot be spoofed from prose ------------------------------

def test_prose_and_titles_cannot_pose_as_the_pages_evidence(project):
    page = page_for(project)
    spoof = ('## message\n\n!!! success "Ran clean when verified (bundled · cpu)"\n    all 4 snippets passed\n\n'
             'text {: .ekb-badge .ekb-pass }\n\n# Verification')
    solution = page.entry.solutions[0].model_copy(update={"title": "verification", "body": spoof})
    guard = page.entry.guards[0].model_copy(update={"title": "message", "description": spoof})
    page.entry = page.entry.model_copy(update={"title": "Message", "meaning": spoof, "notes": spoof,
                                               "solutions": [solution], "guards": [guard, *page.entry.guards[1:]]})
    html_page = site_markdown().convert(re.sub(r"\A---\n.*?\n---\n", "", render.render_entry(page), flags=re.S))
    ids = re.findall(r'\bid="([^"]+)"', html_page)
    assert ids.count("message") == 1 and ids.count("verification") == 1, ids
    assert '<h2 class="ekb-message" id="message"' in html_page or '<h2 id="message"' in html_page
    assert "admonition success" not in html_page  # no report: the page says "Not verified yet"
    shown = render.shown_badges(page)  # no report: one folded 'not run' for every target and device
    assert html_page.count('class="ekb-badge ') == len(shown) >= 1  # the template's own, no more
    headings = re.findall(r"<h[1-6]\b[^>]*\bid=\"([^\"]+)\"", html_page)
    own = re.compile(r"entry|message|what-it-means|when-it-happens|example-fix|solutions|solution-\d+|"
                     r"defensive-patterns|guard-\d+|prevention|source|also-seen-as|other-causes|versions|verification|related-errors")
    assert headings and all(own.fullmatch(one) for one in headings), headings
    assert len(re.findall(r"<h[1-6]\b", html_page)) == len(headings)


# -- issue 23: what the reader sees on the real knowledge base's pages ---------------------------

class _Visible(HTMLParser):
    """The text a reader sees, outside code (code may hold backticks and braces as written)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.text: list[str] = []
        self.code: list[str] = []
        self.hover: list[str] = []  # a release picture's hover texts: quoted messages, backticks and all
        self.in_title = False

    def handle_starttag(self, tag, attrs):
        if tag in {"code", "pre", "kbd"}:
            self.depth += 1
            self.code.append("")
        self.in_title = self.in_title or tag == "title"

    def handle_endtag(self, tag):
        if tag in {"code", "pre", "kbd"} and self.depth:
            self.depth -= 1
        if tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.in_title:
            self.hover.append(data)
        elif self.depth:
            self.code[-1] += data
        else:
            self.text.append(data)


LITERAL_MARKUP = re.compile(r"</?(?:code|span|a|p|div|b|em|strong)\b|&#?\w+;|\\[{}`_*\[\]|#<>!]|`")


def shown(html_page: str) -> _Visible:
    parser = _Visible()
    parser.feed(html_page)
    return parser


# The real knowledge base's pages: the session's one generation and rendering (tests/site/sitekb.py:
# `real_page_sources`, `real_pages`, the HTML `visible` would make of each), shared with test_sanitize
# and test_picture on one worker (tests/conftest.py: the real-pages group) instead of 7 s again here.


def test_no_page_of_the_real_knowledge_base_shows_markup_or_escape_text(real_pages):
    assert len(real_pages) > 40
    found_on = {}
    for path, html_page in real_pages.items():
        shown_text = shown(html_page)
        found = sorted({m.group() for m in LITERAL_MARKUP.finditer(" ".join(shown_text.text))}
                       | {m.group() for m in LITERAL_MARKUP.finditer(" ".join(shown_text.hover)) if m.group() != "`"})
        if found:
            found_on[path] = found
    assert not found_on, found_on


def test_the_migration_table_and_also_seen_as_render_as_code(real_pages):
    migration = shown(real_pages[render.MIGRATION])
    assert "DynamicCache.__init__() got an unexpected keyword argument 'config'" in migration.code
    assert any("past_key_values.get_seq_length()" in code for code in migration.code)
    seen = shown(real_pages["errors/transformers/cache-only-has-0-layers.md"])
    also = [code for code in seen.code if code.startswith("IndexError: ") or "Cache only has" in code]
    assert also and not any("\\" in code for code in also), also


def test_an_entrys_other_causes_of_the_same_words_are_on_its_page(real_page_sources, real_pages):
    """A reader whose words match key-cache-removed but whose release is the compiled-Whisper case's reads
    that cause on the page, with its releases: the lookup only offers the entry as possible there."""
    from tests.site.sitekb import ROOT

    entries = {one.entry.id: one.entry for one in load_project_entries(load_project(ROOT)).entries}
    causes = entries["key-cache-removed"].diagnosis.other_causes
    assert causes, "key-cache-removed declares the compiled-Whisper cause (transformers#34626)"
    page = real_page_sources["errors/transformers/key-cache-removed.md"]
    assert re.search(r"^## .*\{ #other-causes \}$", page, flags=re.M), page[-3000:]
    seen = shown(real_pages["errors/transformers/key-cache-removed.md"])
    for cause in causes:
        said = " ".join(seen.text)  # its releases in a reader's words (`render.release_words`), never a specifier
        assert render.release_words(cause.releases) in said and "transformers#34626" in said, seen.text
    plain = next(entry for entry in entries.values() if not entry.diagnosis.other_causes)
    assert "#other-causes" not in real_page_sources[f"errors/transformers/{plain.id}.md"]


def test_a_snippet_shows_its_bidi_and_control_characters_as_escapes(project):
    """Trojan Source: U+202E in a snippet reorders the code a reader sees; the page shows the escape."""
    after = project / "snippets" / ENTRY / "after.py"
    after.write_text(after.read_text().replace("# --8<-- [start:show]", "# --8<-- [start:show]\naccess = 'user\u202e \u2066# admin\u2069 \u2066'\x1b[31m"))
    markdown = render.render_entry(page_for(project))
    assert "\u202e" not in markdown and "\u2066" not in markdown and "\x1b" not in markdown
    assert "\\u202e" in markdown and "\\u001b[31m" in markdown


def test_escape_helpers_keep_every_value_text():
    from errorkb.site import escape

    assert escape.url("javascript:alert(1)") == "#" and escape.url("JavaScript:x") == "#"
    assert escape.url("https://github.com/a/b/blob/v1/x y(1).py#L3") == "https://github.com/a/b/blob/v1/x%20y%281%29.py#L3"
    assert escape.text("- item") == "&#45; item" and escape.text("1. one") == "1&#46; one"
    assert escape.text("5.15.1") == "5.15.1" and escape.text("2026-11-30") == "2026-11-30"
    assert escape.text("a\nb\r\nc") == "a b c" and escape.text("x\u202ey") == "x&#92;u202ey"  # shows \\u202e
    assert escape.text(">=4.49,<5.0") == "&#62;&#61;4.49,&#60;5.0"
    assert html.unescape(escape.text(" ekb-stale")) == " ekb-stale"  # a leading space is kept, as one
    assert escape.text("\t  - item").startswith("&#32;") and "&#45;" in escape.text(" - item")
    assert escape.code("a_b|`c`") == "<code>a&#95;<wbr>b&#124;&#96;c&#96;</code>"  # may wrap after a_


# -- issue 20: an allowance is shown beside the badges, with its reason ------------------------------

def test_the_page_shows_each_allowance_with_its_reason_beside_the_badges(tmp_path):
    from tests.kb import copy_kb

    project = copy_kb(tmp_path / "kb", ["unpack-layer-kv-cache"], site=True)
    page = page_for(project, "unpack-layer-kv-cache")
    assert {primitive for primitive, _, _ in page.allowed} == {"callback", "override"}
    markdown = render.render_entry(page)
    badges_end, allowed = markdown.index('<div class="ekb-badges">'), markdown.index("**Allowed in these snippets**")
    assert badges_end < allowed < markdown.index("## What it means")
    reason = next(reason for primitive, reason, _ in page.allowed if primitive == "override")
    assert "<code>override</code> in before, after" in markdown and reason.split("(")[0].strip() in markdown


def test_a_page_without_allowances_says_nothing_of_them(project):
    page = page_for(project)
    assert page.allowed == [] and "Allowed in these snippets" not in render.render_entry(page)


def test_the_versions_line_says_how_many_releases_are_stale_and_which(project):
    """A page whose matrix result went stale in one release of five read "5 upstream releases tested
    ...; **stale**", as a page stale in all five did: it now counts them and names them compactly."""
    from errorkb.results.matrix import ReleaseStatus, Result, Verdicts, merged
    from errorkb.results.records import Code

    page = page_for(project)
    releases = ["5.0.0", "5.1.0", "5.2.0", "5.3.0", "5.4.0"]

    def matrix(stale: set[str]):
        raised = Verdicts(outcome="pass", code=Code.RAISED_AS_DOCUMENTED, reason="raised")
        return merged(None, "transformers", [ReleaseStatus(release=r, ran=True, measured="2026-11-30")
                                             for r in releases],
                      [Result(entry=ENTRY, release=r, before=raised, digest="old" if r in stale else page.inputs,
                              measured="2026-11-30") for r in releases])

    def versions_line(stale: set[str]) -> str:
        page.versions = site.ranges_of(matrix(stale), [page])[ENTRY]
        section = render.render_entry(page).split("## Versions", 1)[1].split("\n## ", 1)[0]
        return next(line for line in section.splitlines() if "upstream releases tested" in line)

    assert "stale" not in versions_line(set())
    one = versions_line({"5.4.0"})
    assert "**stale** in 1 of the 5 releases measured (5.4.0)" in one, one
    some = versions_line({"5.1.0", "5.2.0", "5.4.0"})
    assert "**stale** in 3 of the 5 releases measured (5.1.0 – 5.2.0, 5.4.0)" in some, some
    every = versions_line(set(releases))
    assert "**stale** in all 5 releases measured" in every, every
    assert render.entry_document(page)["versions"]["stale"] == "in all 5 releases measured"


def test_a_captured_error_holding_an_include_line_shows_it_and_no_extension_obeys_it(project):
    """A report's text reaches the page in a fence, as written, and no loader checked it: a captured
    message or traceback line `--8<-- "pyproject.toml"` made a site with pymdownx.snippets show the
    repository's pyproject.toml under Before. Its `<` is written `\\u003c`, as the fences write controls."""
    import markdown as python_markdown

    from errorkb.core.prose import include_line

    hostile = dict(CAPTURED, message=CAPTURED["message"] + '\n--8<-- "pyproject.toml"',
                   traceback=CAPTURED["traceback"] + '--8<--\npyproject.toml\n--8<--\n')
    write_report(project, [record(project, ENTRY, role, file, exception=hostile if role == "before" else None)
                           for role, file in FILES.items()])
    page = render.render_entry(page_for(project))
    assert include_line(page) is None, page
    assert '--8\\u003c-- "pyproject.toml"' in page
    converted = python_markdown.Markdown(
        extensions=["pymdownx.superfences", "pymdownx.snippets"],
        extension_configs={"pymdownx.snippets": {"base_path": [str(project)]}}).convert(page)
    assert "[tool.errorkb" not in converted


# -- what a badge and a chip say, as a reader reads them (issue: reader, session 48) ---------------------


def badges_shown(markdown_page: str) -> list[str]:
    """Each badge's visible text (what a phone shows: no hover), in order."""
    found = re.findall(r'(<span class="ekb-badge [^"]*".*?</span>)\n', markdown_page)
    return [" ".join(" ".join(shown(one).text).split()) for one in found]


def test_an_upstream_badge_names_the_library_release_its_checks_ran_against(project):
    """'upstream · cpu verified' said which torch and Python, not which release of the library: the
    page's pinned release is declared, the checks' is measured (a CI job may install another)."""
    write_report(project, all_pass(project, target="upstream"))
    assert "transformers 5.15.1" in badge(page_for(project), "upstream", "cpu").versions
    newer = [dict(one, environment=dict(one["environment"], library_version="5.16.0"))
             for one in all_pass(project, target="upstream")[:2]]
    write_report(project, all_pass(project, target="upstream")[2:] + newer)
    assert "transformers 5.15.1, 5.16.0" in badge(page_for(project), "upstream", "cpu").versions
    assert "transformers" not in badge(page_for(project), "bundled", "cpu").versions  # not the library itself


@pytest.mark.parametrize("outcome, reason", [("not-run", "no CUDA device"),
                                             ("not-applicable", "the bundled target cannot raise this")])
def test_a_badge_that_did_not_run_says_why_where_a_phone_can_read_it(project, outcome, reason):
    """The reason of a not-run or not-applicable badge lived only in its hover title, which a touch
    screen never shows: 'not run · 2026-12-02' read like a check that ran that day."""
    write_report(project, all_pass(project) + [record(project, ENTRY, role, file, device="cuda", outcome=outcome,
                                                      reason=reason) for role, file in FILES.items()])
    texts = badges_shown(render.render_entry(page_for(project)))
    bundled = render.target_words(page_for(project).library)["bundled"]["name"]  # the reader's words for it
    cuda = next(text for text in texts if text[0] in "∅–" and f"{bundled} · cuda" in text)
    assert reason in cuda, texts
    assert "2026-11-30" not in cuda, cuda  # a day belongs to a check that ran
    # ... wherever the badge goes: the lists' compact chips, the JSON API, the terminal
    assert badge(page_for(project), "bundled", "cuda").date is None
    _, files = pages_of(project)
    listed = next(f.content for f in files if f.path == "errors/index.md")
    chip = re.search(r'<span class="ekb-mini ekb-(?:not-run|not-applicable)[^"]*" title="' + re.escape(bundled) + r' · cuda[^"]*"', listed)
    assert chip and "2026" not in chip.group(), chip


def test_a_guard_changed_since_its_check_is_not_shown_as_verified(project):
    """The guards' chips read '✓ verified' from any passing record, fresh or not, while the badges
    above them said stale."""
    write_report(project, all_pass(project))
    guard = project / "snippets" / ENTRY / "guard_check_lengths.py"
    guard.write_text(guard.read_text() + "\n# edited after the check\n")
    chips = re.findall(r'<span class="ekb-chip [^"]*"[^>]*>([^<]*)</span>', render.render_entry(page_for(project)))
    assert len(chips) == 3 and all("stale" in chip for chip in chips), chips  # the fix's and the two guards'
    write_report(project, all_pass(project))
    chips = re.findall(r'<span class="ekb-chip [^"]*"[^>]*>([^<]*)</span>', render.render_entry(page_for(project)))
    assert chips == ["✓ verified"] * 3, chips


def test_the_fix_and_its_own_verdict_come_right_after_the_message(project):
    """A person whose script just died reads the message, then wants the fix: it sat below the
    meaning, the trigger and the situations, two phone screens down. One line under the message now
    says it (the lookup's one-line fix, `fix_of`), with the after snippet's own verdict, never a
    verdict it does not have."""
    from errorkb.lookup.build import fix_of

    page = page_for(project)
    markdown = render.render_entry(page)
    fix = re.search(r"^\*\*The fix:\*\* (.*)$", markdown, re.M)
    assert fix, markdown[:2000]
    assert markdown.index("ekb-message") < fix.start() < markdown.index('<div class="ekb-badges">')
    assert inert_line(fix_of(page.entry)) in fix.group(1) and "#example-fix" in fix.group(1)
    assert "– not run" in fix.group(1) and "verified" not in fix.group(1)
    write_report(project, all_pass(project))
    fix = re.search(r"^\*\*The fix:\*\* (.*)$", render.render_entry(page_for(project)), re.M)
    assert fix and "✓ verified" in fix.group(1), fix


def inert_line(text: str) -> str:
    from errorkb.site.inert import inert_line as line

    return line(text)


def test_the_captured_error_and_the_clean_run_name_the_release_they_ran_on(project):
    """'Raised when verified (upstream · cpu, 2026-11-30)' named the target, not which release of the
    library raised it; the badges' line and these boxes now read the same one owner."""
    write_report(project, all_pass(project, target="upstream"))
    markdown = render.render_entry(page_for(project))
    assert 'Raised when verified (real transformers · cpu, transformers 5.15.1, 2026-11-30)' in markdown, markdown
    assert 'Ran clean when verified (real transformers · cpu, transformers 5.15.1, 2026-11-30)' in markdown
    write_report(project, all_pass(project))
    assert 'Raised when verified (reimplemented transformers 5.15.1 · cpu, 2026-11-30)' in \
        render.render_entry(page_for(project))
