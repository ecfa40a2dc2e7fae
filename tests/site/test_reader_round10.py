"""What a reader sees, round ten (session 61): stale and verified, everywhere they are said.

- `errorkb show` named the targets by the verifier's words ("bundled", "upstream"), which a reader cannot know; the
  page names them in the reader's (`render.target_words`, one owner of those words).
- `errorkb coverage` said only "documented": a raise site whose entry failed, did not run or passed on files edited
  since read as covered. It now counts verified apart, by the page's rule and with the page's figures
  (`render.coverage_counts`, one owner), and says beside each entry where it stands.
- The release strip and the heat map drew a release whose matrix result was measured on other inputs than the entry
  now like a fresh one: each such release is now marked stale, in its hover text and in the picture's words.
- The home page claimed every entry a verified fix, and nothing kept that true: the claim is now a figure
  (`{{ errorkb.verified }}`), and every sentence of the home page that says "verified" must carry it.
- `errorkb check` held an entry's diagnosis to its "verified before", picked as any passing upstream before, stale or
  not (a traceback of a snippet since edited); the lookup index's badges left clients to work out "verified".
- reader9's chips in the paste box say "· stale" in words; no browser test held them to it.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys

import pytest

from tests.site.sitekb import ROOT, record, write_report
from tests.site.test_render import CAPTURED, ENTRY, FILES, all_pass, page_for, pages_of

OTHER = "num-heads-list-length"


# -- 1. `errorkb show` names each target as the page does ----------------------------------------------------------


def verification_text(page) -> str:
    import io

    from rich.console import Console

    from errorkb.site import terminal

    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(terminal._verification(page))
    return out.getvalue()


def test_show_names_each_target_in_the_readers_words(project):
    from errorkb.core.project import load_project
    from errorkb.site import render

    write_report(project, all_pass(project))
    text = verification_text(page_for(project))
    named = render.target_words(load_project(project).library)
    for target in ("bundled", "upstream"):
        assert named[target]["name"] in text, (target, text)
    rows = [line for line in text.splitlines()[1:] if line.strip()]
    assert rows and not any(re.match(r"\s*(bundled|upstream)\b", line) for line in rows), text


# -- 2. `errorkb coverage` counts verified apart from documented, as the page does -------------------------------


def page_counts(markdown: str) -> dict[str, tuple[int, int]]:
    """(documented, verified) per file heading of the coverage page."""
    found = {}
    for section in re.split(r"^## ", markdown, flags=re.M)[1:]:
        heading = section.splitlines()[0]
        said = re.search(r"\*\*(\d+) of \d+\*\* raise sites are documented, \*\*(\d+)\*\* of them verified", section) \
            or re.search(r"(\d+) raise sites? (?:of the file's \d+ )?documented here, \*\*(\d+)\*\* of them verified",
                         section)
        found[html.unescape(re.sub(r"<[^>]+>|`", "", heading)).strip()] = (int(said.group(1)), int(said.group(2))) if said else (0, 0)
    return found


def cli_coverage(root, *options: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "errorkb", "--root", str(root), "coverage", *options],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_the_cli_counts_verified_apart_from_documented(project):
    failing = [record(project, OTHER, role, file, outcome="fail" if role == "before" else "pass",
                      code="exited-normally" if role == "before" else None, reason="exited normally")
               for role, file in {"before": "before.py", "after": "after.py"}.items()]
    write_report(project, all_pass(project) + failing)
    done = cli_coverage(project)
    lines = done.stdout.splitlines()
    said = next(line for line in lines if "raise sites documented" in line)
    assert re.search(r"\b2 of \d+ raise sites documented, 1 of them verified\b", said), done.stdout
    assert re.search(rf"{ENTRY} \(✓ verified\)", done.stdout), done.stdout
    assert re.search(rf"{OTHER} \(✗ failing\)", done.stdout), done.stdout
    document = json.loads(cli_coverage(project, "--json").stdout)
    followed = next(one for one in document["files"] if one["followed"])
    assert (followed["documented"], followed["verified"]) == (2, 1)
    standing = {entry: said for row in followed["rows"] for entry, said in row["standing"].items()}
    assert standing == {ENTRY: "verified", OTHER: "failing"}


def test_the_cli_and_the_coverage_page_agree_on_the_real_knowledge_base():
    """The same figures, file by file, from `errorkb coverage --json` and from the page built of the repository's
    entries and reports (whatever the release environments here let either read)."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.site import files, terminal

    project = load_project(ROOT)
    loaded = load_project_entries(project)
    page = page_counts(files.coverage_page(project, loaded, terminal.entry_pages(project, loaded)))
    document = json.loads(cli_coverage(ROOT, "--json").stdout)
    cli = {f"{one['path']} ({one['release']})": (one["documented"], one["verified"]) for one in document["files"]}
    assert cli == page
    assert sum(verified for _, verified in cli.values()) > 0  # the real reports verify entries: not 0 == 0


# -- 3. a stale release is marked stale in the strip and the heat map ---------------------------------------------

STALE_RELEASES = ("5.11.0", "5.12.0")


def with_stale_matrix(project):
    """The repository's matrix, made from this project's entries as they are (the copy's inputs differ from the
    repository's), but `ENTRY`'s results in `STALE_RELEASES`, made from other inputs."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.results.keys import project_inputs
    from tests.site.test_picture import with_matrix

    kb = load_project(project)
    inputs = {one.entry.id: project_inputs(kb, one.entry) for one in load_project_entries(kb).entries}

    def stale(data):
        for one in data["results"]:
            if one["entry"] in inputs:
                one["digest"] = inputs[one["entry"]]
            if one["entry"] == ENTRY and one["release"] in STALE_RELEASES:
                one["digest"] = "other inputs than the entry now"

    with_matrix(project, stale)


def test_the_strip_marks_each_stale_release_in_words(project):
    from errorkb.results.keys import STALE_WHY
    from errorkb.site import render

    with_stale_matrix(project)
    page = page_for(project)
    strip = page.strip
    assert strip is not None
    assert [cell.release for cell in strip.cells if "stale" in cell.title] == list(STALE_RELEASES)
    assert all(STALE_WHY in cell.title for cell in strip.cells if cell.release in STALE_RELEASES)
    assert "stale in 5.11.0 – 5.12.0" in strip.summary, strip.summary
    markdown = render.render_entry(page)
    marks = re.findall(r'<g class="ekb-strip__stale"><title>([^<]*)</title>', markdown)
    assert [mark.split(":")[0] for mark in marks] == list(STALE_RELEASES), marks
    assert "stale in 5.11.0 – 5.12.0" in markdown  # the picture's words (aria-label)
    fresh = page_for(project, OTHER).strip
    assert fresh is not None and not any("stale" in cell.title for cell in fresh.cells)


def test_the_heat_map_marks_each_stale_release_in_words(project):
    from errorkb.site import render

    with_stale_matrix(project)
    pages, files = pages_of(project)
    verification = next(one.content for one in files if one.path == render.VERIFICATION)
    row = next(line for line in verification.splitlines() if "ekb-heat__row" in line and f"{ENTRY}:" in line)
    titles = re.findall(r"<title>([^<]*)</title>", row)
    stale = [title for title in titles if "stale" in title]
    assert stale and all("5.11.0 – 5.12.0" in title or "5.11.0" in title for title in stale), stale
    assert "stale in 5.11.0 – 5.12.0" in row
    other = next(line for line in verification.splitlines() if "ekb-heat__row" in line and f"{OTHER}:" in line)
    assert "stale" not in other


# -- 4. the home page's claim is a figure ------------------------------------------------------------------------


def sentences(text: str) -> list[str]:
    return [one for one in re.split(r"(?<=[.:;!?])\s+", " ".join(text.split())) if one]


@pytest.mark.parametrize("case", ["after fails", "stale", "no report"])
def test_the_home_page_claims_no_verified_fix_that_is_not(project, case):
    from errorkb.core.project import load_project
    from errorkb.site import files, render

    checks = all_pass(project, sha="0" * 64) if case == "stale" else [] if case == "no report" else \
        [one for one in all_pass(project) if one["role"] != "after"] + [
            record(project, ENTRY, "after", FILES["after"], outcome="fail", code="raised", reason="raised ValueError")]
    write_report(project, checks)
    pages, _ = pages_of(project)
    known = files.facts(load_project(project), pages)
    assert known["verified"] == "0" == str(render.verified_count(pages))
    text, problems = files.fill((ROOT / "docs" / "index.md").read_text(encoding="utf-8"), known, "docs/index.md")
    assert problems == []
    claims = [one for one in sentences(text) if re.search(r"\bverified\b", one, re.I)]
    assert claims, "the home page says nothing of what was verified"
    for claim in claims:
        assert re.search(r"\b0 of (the )?2\b", claim), claim


def test_the_home_page_counts_what_the_list_of_errors_counts(project):
    from errorkb.core.project import load_project
    from errorkb.site import files, render

    write_report(project, all_pass(project))
    pages, _ = pages_of(project)
    assert files.facts(load_project(project), pages)["verified"] == "1"
    said = re.search(r"(\d+) verified on at least one target", render.render_index(pages))
    assert said and said.group(1) == "1"


# -- 5. no stale pass is an entry's verified before, nor a verified badge in the lookup's index ------------------


def test_a_stale_pass_is_not_the_verified_before_a_diagnosis_is_held_to(project):
    from errorkb.core.project import load_project
    from errorkb.site import hookindex

    write_report(project, [record(project, ENTRY, "before", "before.py", target="upstream", exception=CAPTURED,
                                  sha="0" * 64)])
    assert ENTRY not in [case.entry for case in hookindex.diagnosis_cases(load_project(project))]
    write_report(project, [record(project, ENTRY, "before", "before.py", target="upstream", exception=CAPTURED)])
    assert ENTRY in [case.entry for case in hookindex.diagnosis_cases(load_project(project))]


@pytest.mark.parametrize("stale", [False, True])
def test_the_lookup_index_says_verified_by_the_sites_rule(project, stale):
    from errorkb.core.project import load_project
    from errorkb.site import render

    write_report(project, all_pass(project, **({"sha": "0" * 64} if stale else {})))
    pages, _ = pages_of(project)
    document = render.index_document(pages, load_project(project).library)
    mine = next(one for one in document["entries"] if one["id"] == ENTRY)
    assert {(b["target"], b["device"]): b["verified"] for b in mine["badges"]} == \
        {(b.target, b.device): b.verified for b in render.badges(page_for(project))}
    assert any(b["verified"] for b in mine["badges"]) is not stale


# -- 6. the paste box's chips say "stale" in words (a real browser) ---------------------------------------------


def stale_index():
    from errorkb.core.message import GENERIC_WORDINGS
    from errorkb.lookup.build import rules_document
    from tests.site.test_paste_box import HEAD_DIM

    base = {"id": "head-dim", "title": "head_dim list", "exception": "ValueError", "message": HEAD_DIM,
            "function": "Cache.early_initialization", "url": "errors/transformers/head-dim-list-length/"}
    badge = {"target": "upstream", "device": "cpu", "outcome": "pass", "stale": True, "date": "2026-11-30"}
    shown = {"outcome": "pass", "where": "real transformers · cpu", "label": "verified · stale", "icon": "✓",
             "stale": True, "date": "2026-11-30", "folded": False, "said": ""}
    return {"schema": 1, "library": {"name": "transformers"}, "rules": rules_document(list(GENERIC_WORDINGS)),
            "stale_why": "the entry or its snippets changed since", "outcomes": {
                "words": {"pass": "verified"}, "icons": {"pass": "✓"},
                "targets": {"upstream": {"name": "real transformers"}}},
            "entries": [{**base, "badges": [badge], "shown": [shown]}]}


@pytest.mark.browser
@pytest.mark.parametrize("chips", ["shown", "badges"])
def test_the_paste_box_chip_says_stale_in_words(visit, site_url, chips):
    """The chip of a stale pass says "· stale" in its text, not only in hatching and a hover text: from the page's
    own badges (`shown`), and from an older index's `badges`."""
    from tests.site.sitekb import MESSAGE

    index = stale_index()
    if chips == "badges":
        del index["entries"][0]["shown"]
    tab = visit()
    tab.page.route("**/api/errors/index.json", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(index)))
    tab.page.goto(site_url, wait_until="load")
    tab.page.locator(".ekb-lookup__input").fill(f"ValueError: {MESSAGE}")
    chip = tab.page.locator(".ekb-lookup__hit .ekb-lookup__badges .ekb-mini").first
    chip.wait_for()
    text = chip.inner_text()
    assert "real transformers · cpu" in text and text.rstrip().endswith("· stale"), text
    assert "ekb-stale" in (chip.get_attribute("class") or "")
    assert "the entry or its snippets changed since" in (chip.get_attribute("title") or "")
    assert tab.errors == []


def test_the_hook_index_holds_no_verdict_to_go_stale(project):
    """The hook and `errorkb lookup` outside a checkout read the shipped index, written when an entry changes and
    never when a report does: a verdict in it would outlive the report that gave it, unmarked. It holds none, and
    `errorkb show` from it sends the reader to the page for where and when the fix was verified."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project
    from errorkb.site import hookindex

    write_report(project, all_pass(project, sha="0" * 64))
    kb = load_project(project)
    document = hookindex.hook_index(kb, [one.entry for one in load_project_entries(kb).entries])
    keys: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, dict):
            keys.update(map(str, value))
            for one in value.values():
                walk(one)
        elif isinstance(value, list):
            for one in value:
                walk(one)

    walk(document["entries"])
    assert not keys & {"badges", "shown", "verified", "outcome", "stale", "verified_at"}, keys
