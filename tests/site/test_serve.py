"""The authoring loop: `mkdocs serve` rebuilds when an entry, a snippet or a report changes,
and a broken entry shows its `path:line:col` problems in the log without taking the other
pages down."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.site.sitekb import record, write_report

ENTRY_URL = "errors/transformers/head-dim-list-length/"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    port = free_port()
    log_path = tmp_path / "serve.log"
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            # --dirty as scripts/serve.sh (the README's first command) runs it; plain `mkdocs serve`
            # builds the same pages (tests/site/test_live.py holds both to a build from scratch)
            [sys.executable, "-m", "mkdocs", "serve", "--livereload", "--dirty", "-a", f"127.0.0.1:{port}",
             "-f", str(project / "mkdocs.yml")], stdout=log, stderr=subprocess.STDOUT, cwd=project,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    base = f"http://127.0.0.1:{port}/"
    try:
        wait_for(lambda: fetch(base + ENTRY_URL), "mkdocs serve to start", timeout=60)
        yield base, log_path
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


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
    each is a located problem in the log, and every other page stays up and keeps rebuilding."""
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
    started = time.monotonic()
    assert "What it means" in (fetch(base + ENTRY_URL) or "")
    assert time.monotonic() - started < 5
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
