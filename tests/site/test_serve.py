"""The authoring loop: `mkdocs serve` rebuilds when an entry, a snippet or a report changes,
and a broken entry shows its `path:line:col` problems in the log without taking the other
pages down."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.site.sitekb import free_port, mkdocs_serve, record, write_report

ENTRY_URL = "errors/transformers/head-dim-list-length/"


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8")
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def wait_for(predicate, what: str, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.25)
    pytest.fail(f"timed out waiting for {what}")


@pytest.fixture
def served(project, tmp_path):
    log_path, port = tmp_path / "serve.log", free_port()
    base = f"http://127.0.0.1:{port}/"
    # --dirty as scripts/serve.sh (the README's first command) runs it; plain `mkdocs serve` builds the same pages
    # (tests/site/test_live.py holds both to a build from scratch). Forked from the warm builder where a fresh
    # interpreter would serve the same (`sitekb.mkdocs_serve`).
    with mkdocs_serve(project / "mkdocs.yml", port, log_path, "--livereload", "--dirty"):
        wait_for(lambda: fetch(base + ENTRY_URL), "mkdocs serve to start", timeout=60)
        yield base, log_path


def test_serve_rebuilds_on_entry_snippet_and_report_changes(served, project: Path):
    base, log = served
    assert "Not verified yet" in fetch(base + ENTRY_URL)

    write_report(project, [record(project, "head-dim-list-length", "after", "after.py", reason="clean run")])
    wait_for(lambda: "Ran clean when verified" in (fetch(base + ENTRY_URL) or ""), "the report to show")

    snippet = project / "snippets" / "head-dim-list-length" / "after.py"
    snippet.write_text(snippet.read_text().replace("# --8<-- [start:show]", "# --8<-- [start:show]\n# EDITED-LIVE"))
    wait_for(lambda: "EDITED-LIVE" in (fetch(base + ENTRY_URL) or ""), "the snippet change to show")
    assert "stale" in fetch(base + ENTRY_URL)  # the report predates the edit

    yaml_path = project / "docs/errors/transformers/head-dim-list-length.yml"
    yaml_path.write_text(yaml_path.read_text().replace("title: \"`head_dim` list", "title: \"RENAMED `head_dim` list"))
    wait_for(lambda: "RENAMED" in (fetch(base + ENTRY_URL) or ""), "the entry change to show")


def test_a_broken_entry_is_reported_by_position_and_the_others_stay_up(served, project: Path):
    base, log = served
    other = project / "docs/errors/transformers/num-heads-list-length.yml"
    other.write_text(other.read_text().replace("meaning: |", "meening: |", 1))
    line = next(i for i, text in enumerate(other.read_text().splitlines(), 1) if text.startswith("meening:"))
    wait_for(lambda: f"num-heads-list-length.yml:{line}:1: " in log.read_text(), "the problem in the serve log")
    assert "did you mean 'meaning'" in log.read_text()
    time.sleep(1.0)  # let the rebuild finish
    assert "What it means" in wait_for(lambda: fetch(base + ENTRY_URL), "the healthy page")
    assert "Errors by API" in fetch(base + "errors/by-api/")


def test_a_hostile_entry_keeps_no_page_waiting(served, project: Path):
    """An alias bomb, 999 levels of nesting and an oversize field, saved while serve runs:
    each is a located problem in the log, and every other page stays up and keeps rebuilding (the next save shows:
    no rebuild is left stuck on them; how long a page may take is the render budget's, tests/site/test_build.py,
    never a clock here: this test's `< 5 s` to fetch a page failed at load 19)."""
    from tests.test_hostile_input import BILLION_LAUGHS

    base, log = served
    folder = project / "docs/errors/transformers"
    good = (folder / "num-heads-list-length.yml").read_text()
    (folder / "bomb.yml").write_text(good.replace("id: num-heads-list-length", "id: bomb") + BILLION_LAUGHS)
    (folder / "deep.yml").write_text(good.replace("id: num-heads-list-length", "id: deep")
                                     + "notes: " + "[" * 999 + "]" * 999 + "\n")
    (folder / "huge.yml").write_text(good.replace("id: num-heads-list-length", "id: huge")
                                     .replace("meaning: |\n", "meaning: |\n  " + "x" * 60_000 + "\n", 1))
    for where in ["bomb.yml", "deep.yml", "huge.yml"]:
        wait_for(lambda where=where: f"transformers/{where}:" in log.read_text(), f"{where}'s problem in the log")
    text = log.read_text()
    assert "YAML aliases" in text and "nested deeper than" in text and "the limit is 20,000" in text
    assert "What it means" in wait_for(lambda: fetch(base + ENTRY_URL), "the healthy page")
    yaml_path = folder / "head-dim-list-length.yml"
    yaml_path.write_text(yaml_path.read_text().replace("title: \"`head_dim` list", "title: \"STILL-LIVE `head_dim` list"))
    wait_for(lambda: "STILL-LIVE" in (fetch(base + ENTRY_URL) or ""), "the next edit to show", timeout=30)


def break_entry(path: Path) -> int:
    """Misspell `meaning` and add a line of markup; returns the misspelt key's line."""
    path.write_text(path.read_text().replace("meaning: |", "meening: |", 1) + "notes: <img src=x onerror=alert(1)>\n"
                    + "notes: twice\n")
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("meening:"))


def test_a_broken_entrys_page_shows_its_problems_and_comes_back_on_save(served, project: Path):
    base, log = served
    yaml_path = project / "docs/errors/transformers/head-dim-list-length.yml"
    good = yaml_path.read_text()
    line = break_entry(yaml_path)
    page = wait_for(lambda: (text := fetch(base + ENTRY_URL)) and "This entry does not load" in text and text,
                    "the problem page")
    assert f"docs/errors/transformers/head-dim-list-length.yml:{line}:1: unknown key" in page
    assert "meening: |" in page and "did you mean 'meaning'" in page
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    yaml_path.write_text(good)
    wait_for(lambda: "What it means" in (fetch(base + ENTRY_URL) or ""), "the entry's page back")


@pytest.mark.browser
def test_in_a_browser_the_problems_show_then_the_entry_after_the_fix(served, project: Path, visit):
    """Under `mkdocs serve` with live reload, as an author sees it."""
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import expect

    base, log = served
    yaml_path = project / "docs/errors/transformers/head-dim-list-length.yml"
    good = yaml_path.read_text()
    line = break_entry(yaml_path)
    wait_for(lambda: "This entry does not load" in (fetch(base + ENTRY_URL) or ""), "the problem page")
    tab = visit()
    tab.page.goto(base + ENTRY_URL, wait_until="load")
    expect(tab.page.locator("h1")).to_contain_text("This entry does not load")
    problem = tab.page.locator(".ekb-problem code", has_text=f"head-dim-list-length.yml:{line}:1: unknown key")
    expect(problem).to_contain_text("unknown key 'meening' (did you mean 'meaning'?)")
    expect(tab.page.locator("pre", has_text="meening: |")).to_have_count(1)
    assert tab.page.locator("article img").count() == 0
    yaml_path.write_text(good)
    tab.page.wait_for_timeout(500)
    wait_for(lambda: "What it means" in (fetch(base + ENTRY_URL) or ""), "the entry's page back")
    try:
        tab.page.reload(wait_until="load")
    except PlaywrightError:  # live reload navigated the page at the same moment (seen on a busy CI machine)
        tab.page.wait_for_load_state("load")
    expect(tab.page.locator("h1")).to_contain_text("head_dim")
    expect(tab.page.get_by_text("What it means").first).to_be_visible()
    assert tab.errors == [] and tab.outside == []


def test_a_serve_is_forked_from_the_warm_builder_only_where_a_fresh_interpreter_would_serve_the_same(
        project, tmp_path, monkeypatch):
    """`sitekb.mkdocs_serve` as `mkdocs_build`: the warm builder's child runs `mkdocs serve` in the config's folder with
    its arguments and the test's name, serves, logs both its streams in the log, and is stopped when the block ends;
    asked for in another environment than the builder's, a fresh interpreter (a child of this process) runs it, read
    here once it has loaded the config (its pages are the other tests' `served`)."""
    from tests.site.test_build import probed

    seen_file = probed(project)
    for fresh in (False, True):
        if fresh:
            monkeypatch.setenv("EKB_PROBE", "seen")
        seen_file.unlink(missing_ok=True)
        port, log = free_port(), tmp_path / f"serve-{fresh}.log"
        with mkdocs_serve(project / "mkdocs.yml", port, log, "--dirty") as served:
            if not fresh:
                page = wait_for(lambda port=port: fetch(f"http://127.0.0.1:{port}/{ENTRY_URL}"),
                                "mkdocs serve to start", timeout=60)
                assert "What it means" in page
            seen = json.loads(wait_for(lambda: seen_file.is_file() and seen_file.read_text(), "the config loaded",
                                       timeout=60))
            assert served.running()
        assert not served.running()
        assert served.forked is not fresh and (seen["parent"] == os.getpid()) is fresh, (fresh, seen)
        assert seen["probe"] == ("seen" if fresh else None) and seen["test"] == os.environ["PYTEST_CURRENT_TEST"]
        assert seen["cwd"] == str(project) and seen["argv"][:2] == ["serve", "--dirty"], seen
    said = (tmp_path / "serve-False.log").read_text()
    assert "Building documentation" in said and "Serving on http://127.0.0.1:" in said, said[-3000:]
