"""Whole-site builds of a small knowledge base in a temp folder: strict, safe, offline-clean,
and resilient to a broken entry."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.site.sitekb import mkdocs_build, record, write_report

ENTRY = "head-dim-list-length"
YAML = Path("docs/errors/transformers/head-dim-list-length.yml")


def entry_html(site: Path, entry_id: str = ENTRY) -> str:
    return (site / "errors" / "transformers" / entry_id / "index.html").read_text(encoding="utf-8")


def test_strict_build_publishes_pages_api_and_schema(project, tmp_path):
    write_report(project, [record(project, ENTRY, "before", "before.py", exception={
        "type": "ValueError", "message": "`head_dim` was provided as a list of length 12, but the Cache currently "
        "has 12 layers", "traceback": "Traceback (most recent call last):\nValueError: captured\n"})])
    (project / "docs" / "ci.md").write_text("# CI\n\nHow CI verifies the knowledge base.\n")
    site = tmp_path / "site"
    result = mkdocs_build(project / "mkdocs.yml", site)
    assert result.returncode == 0, result.stderr
    html = entry_html(site)
    assert "What it means" in html and "tabbed-set" in html and "ekb-badge ekb-partial" in html
    assert 'href="../../../ci/"' in html  # nav_if_present: docs/ci.md joined the nav
    assert "the Cache currently has 12 layers" in html  # captured text under Before
    assert 'href="https://github.com/errorkb/errorkb/edit/main/docs/errors/transformers/head-dim-list-length.yml"' in html
    for page in ["index.html", "errors/index.html", "errors/by-exception/index.html", "errors/by-api/index.html",
                 "tags/index.html", "verification/index.html", "api/index.html"]:
        assert (site / page).is_file(), page
    index = json.loads((site / "api/errors/index.json").read_text())
    assert {e["url"] for e in index["entries"]} == {"errors/transformers/head-dim-list-length/",
                                                     "errors/transformers/num-heads-list-length/"}
    assert json.loads((site / "api/schema/entry.json").read_text())["additionalProperties"] is False
    assert json.loads((site / f"api/errors/{ENTRY}.json").read_text())["id"] == ENTRY
    search = json.loads((site / "search/search_index.json").read_text())
    assert any("head_dim" in doc["text"] for doc in search["docs"] if doc["location"].startswith("errors/transformers/head-dim"))


def test_pages_ask_for_nothing_outside_the_site(project, tmp_path):
    site = tmp_path / "site"
    assert mkdocs_build(project / "mkdocs.yml", site).returncode == 0
    external = re.compile(r'<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="(?:https?:)?//', re.I)
    offenders = [str(p) for p in site.rglob("*.html")
                 if external.search(p.read_text(encoding="utf-8").replace('rel="canonical" href="http', ""))]
    assert not offenders, offenders
    assert 'data-md-component="source"' not in entry_html(site)  # no api.github.com fetch


def test_script_and_raw_html_in_prose_render_as_text(project, tmp_path):
    yaml_path = project / YAML
    text = yaml_path.read_text()
    attack = ("  <script>alert('owned')</script> <img src=x onerror=alert(1)> "
              "[click](javascript:alert(2)) **bold**{: onclick=\"alert(3)\" }\n")
    text = text.replace("meaning: |\n", "meaning: |\n" + attack, 1)
    text = text.replace("situations:\n", "situations:\n  - \"<iframe src=https://evil.example></iframe>\"\n", 1)
    yaml_path.write_text(text)
    site = tmp_path / "site"
    result = mkdocs_build(project / "mkdocs.yml", site)
    assert result.returncode == 0, result.stderr
    html = entry_html(site)
    assert "&lt;script&gt;alert('owned')&lt;/script&gt;" in html  # shown to the reader, as text
    tags_with_handlers = re.findall(r"<[a-z][^>]*\son[a-z]+\s*=[^>]*>", html, re.I)
    assert not tags_with_handlers and "<script>alert" not in html and "<iframe" not in html
    assert not re.search(r"<a\b[^>]*href=\"javascript:", html)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;iframe" in html and "[click](javascript:" in html


def test_the_build_never_runs_a_snippet_nor_imports_torch(project, tmp_path):
    marker = tmp_path / "snippet-ran"
    before = project / "snippets" / ENTRY / "before.py"
    before.write_text(f"open({str(marker)!r}, 'w').close()\n" + before.read_text())
    code = ("import sys\nfrom mkdocs.config import load_config\nfrom mkdocs.commands.build import build\n"
            "build(load_config(sys.argv[1], site_dir=sys.argv[2]))\n"
            "heavy = sorted(m for m in ('torch', 'transformers') if m in sys.modules)\n"
            "assert not heavy, f'imported during the build: {heavy}'\n")
    result = subprocess.run([sys.executable, "-c", code, str(project / "mkdocs.yml"), str(tmp_path / "site")],
                            capture_output=True, text=True, cwd=project, timeout=300,
                            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert (tmp_path / "site" / "errors" / "transformers" / ENTRY / "index.html").is_file()


def test_a_broken_entry_reports_its_position_and_the_other_pages_still_build(project, tmp_path):
    broken = project / "docs/errors/transformers/num-heads-list-length.yml"
    broken.write_text(broken.read_text().replace("trigger: |", "triger: |", 1))
    line = next(i for i, text in enumerate(broken.read_text().splitlines(), 1) if text.startswith("triger:"))
    site = tmp_path / "site"
    result = mkdocs_build(project / "mkdocs.yml", site, strict=False)
    assert result.returncode == 0, result.stderr
    assert f"docs/errors/transformers/num-heads-list-length.yml:{line}:1: " in result.stderr
    assert "did you mean 'trigger'" in result.stderr
    assert "What it means" in entry_html(site)  # the healthy entry is still published
    strict = mkdocs_build(project / "mkdocs.yml", tmp_path / "strict-site")
    assert strict.returncode != 0  # CI fails on it


# -- issue 23: the plugin renders every generated page within the render budget -----------------

def build_in_process(config_file: Path, site_dir: Path) -> None:
    """`mkdocs build` in this process (the budget's CPU timer runs in the main thread, as in MkDocs)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    config = load_config(str(config_file), site_dir=str(site_dir))
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()


@pytest.mark.parametrize("marker, what", [("BURN-PYTHON", "took more than 1 s of CPU time to render"),
                                          ("RAISE-HERE", "raised ValueError while rendering"),
                                          ("RECURSE-HERE", "nests too deeply to render (RecursionError)")])
def test_a_page_past_the_budget_is_published_as_its_problem_and_the_build_goes_on(project, tmp_path, monkeypatch,
                                                                                   caplog, marker, what):
    from errorkb.site import budget

    monkeypatch.setattr(budget, "CPU_SECONDS", 1.0)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text().replace("markdown_extensions:\n", "markdown_extensions:\n  - tests.site.burn\n"))
    yaml_path = project / YAML
    yaml_path.write_text(yaml_path.read_text().replace("trigger: |\n", f"trigger: |\n  {marker}\n", 1))
    line = next(i for i, text in enumerate(yaml_path.read_text().splitlines(), 1) if text.startswith("trigger:"))
    site = tmp_path / "site"
    with caplog.at_level("ERROR", logger="mkdocs.plugins.errorkb"):
        build_in_process(config, site)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert f"{YAML.as_posix()}:{line}:10: trigger: this text {what}" in logged, logged
    broken = entry_html(site)
    assert "This entry does not load" in broken and f"{YAML.as_posix()}:{line}:10: trigger: this text" in broken
    assert "What it means" in entry_html(site, "num-heads-list-length")  # the other entry is untouched
    nav = (site / "index.html").read_text(encoding="utf-8")
    assert re.search(r">\s*By exception\s*<", nav) and re.search(r">\s*All errors\s*<", nav)  # nav titles kept


def test_a_fifo_in_the_docs_folder_does_not_block_the_build(project, tmp_path):
    import os

    os.mkfifo(project / "docs" / "errors" / "transformers" / "pipe.yml")
    os.mkfifo(project / "docs" / "pipe.md")
    site = tmp_path / "site"
    result = mkdocs_build(project / "mkdocs.yml", site, strict=False)  # it blocked copying the FIFO before
    assert result.returncode == 0, result.stderr
    assert "What it means" in entry_html(site)
    assert "pipe.yml:1:1: not a regular file" in result.stderr  # the warning that it is left out is below -q


# -- the docs folder MkDocs walks: depth, links that loop or lead out (redsite3) ---------------------

def test_a_docs_tree_nested_deeper_than_python_recurses_is_a_clear_error_not_a_traceback(project, tmp_path):
    """MkDocs lists docs/ with a recursive os.walk before any plugin's `on_files`: a folder 1,200 deep
    (2.4 KB of path in a pull request) raised RecursionError, and `mkdocs build` printed a traceback.
    The plugin's `on_config` measures the tree first and names the folder to flatten."""
    from tests.test_hostile_input import nested

    (project / "docs" / "stray").mkdir()
    with nested(project / "docs" / "stray"):
        result = mkdocs_build(project / "mkdocs.yml", tmp_path / "site", timeout=120)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr, result.stderr[-2000:]
    assert "docs/stray/a/a/a" in result.stderr and "flatten or remove it" in result.stderr, result.stderr[-2000:]


def test_folder_links_that_loop_in_docs_are_a_clear_error_not_a_build_without_end(project, tmp_path):
    """MkDocs follows links to folders: two links to `.` make 2**40 paths (the kernel stops a path
    at 40 links), a build that never ends. Refused before MkDocs walks, naming the link."""
    (project / "docs" / "one").symlink_to(".")
    (project / "docs" / "two").symlink_to(".")
    result = mkdocs_build(project / "mkdocs.yml", tmp_path / "site", timeout=60)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "docs/one" in result.stderr and "loops" in result.stderr, result.stderr[-2000:]


def test_a_docs_file_or_folder_linking_out_of_the_repository_is_not_published(project, tmp_path, tmp_path_factory):
    """A link in docs/ to a file outside the repository (/proc/self/environ holds the build's secrets)
    was copied into the site as it is: the plugin leaves out every file whose real path leads out, and
    refuses a folder link that does (MkDocs would walk it)."""
    outside = tmp_path_factory.mktemp("outside")  # the project is tmp_path itself
    (outside / "secret.txt").write_text("OUTSIDE-SECRET-3b1f\n")
    (project / "docs" / "leak.txt").symlink_to(outside / "secret.txt")
    (project / "docs" / "environ.txt").symlink_to("/proc/self/environ")
    (project / "docs" / "inside.txt").symlink_to(project / "pyproject.toml")  # inside: still published
    site = tmp_path_factory.mktemp("site")
    result = mkdocs_build(project / "mkdocs.yml", site, strict=False)
    assert result.returncode == 0, result.stderr
    assert not (site / "leak.txt").exists() and not (site / "environ.txt").exists()
    assert (site / "inside.txt").is_file()
    assert "leak.txt" in result.stderr and "leads out of the repository" in result.stderr

    (project / "docs" / "elsewhere").symlink_to(outside)
    result = mkdocs_build(project / "mkdocs.yml", tmp_path_factory.mktemp("site2"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "docs/elsewhere" in result.stderr and "leads out of the repository" in result.stderr, result.stderr[-2000:]


@pytest.mark.parametrize("root", ["/", "../..", "linked"])
def test_the_plugin_root_leading_out_of_the_repository_is_a_clear_error(project, tmp_path, root):
    """`plugins: errorkb: root:` names the project the plugin reads entries, snippets and reports
    from: one that does not hold the mkdocs.yml (absolute, `..`, a link) would publish another
    folder's files. `..` that holds it (mkdocs.yml in a subfolder of the project) stays allowed."""
    (project / "linked").symlink_to(tmp_path)
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8")
    assert "  - errorkb:\n" in text
    config.write_text(text.replace("  - errorkb:\n", f"  - errorkb:\n      root: '{root}'\n"), encoding="utf-8")
    result = mkdocs_build(config, tmp_path / "site", timeout=120)
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert f"root: '{root}'" in result.stderr and "leads out of the repository" in result.stderr, result.stderr[-2000:]


def test_a_hand_written_file_in_place_of_an_entry_page_or_a_generated_document_is_said(project, tmp_path):
    """A hand-written page of a generated page's name wins (docs/tags.md is this site's own), but one
    at an entry's address, or in place of the JSON API or the lookup's index, replaced a verified
    entry's page or the paste box's data with a debug line no build shows: a warning now, which
    fails the strict build, naming the file and what it hides."""
    (project / "docs" / "errors" / "transformers" / f"{ENTRY}.md").write_text("# Verified on every release\n")
    (project / "docs" / "api" / "errors").mkdir(parents=True)
    (project / "docs" / "api" / "errors" / "index.json").write_text("{}\n")
    result = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0
    for hidden, what in ((f"errors/transformers/{ENTRY}.md", "an entry"), ("api/errors/index.json", "a generated file")):
        assert f"docs/{hidden} is hand-written and hides the page errorkb generates there ({what})" in result.stderr, \
            result.stderr[-3000:]
    assert "tags.md" not in result.stderr  # a site page the site's own docs/ writes by hand is not a problem


def test_a_report_record_of_an_entry_the_knowledge_base_lacks_is_said(project, tmp_path):
    """A record of a removed (or renamed) entry speaks for no page: a warning names it and says what to do, which
    fails the strict build, never a silent record behind the pages."""
    kept = record(project, ENTRY, "after", "after.py")
    write_report(project, [kept, {**kept, "entry": "removed-entry", "id": kept["id"].replace(ENTRY, "removed-entry")}])
    result = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "(removed-entry) left out" in result.stderr and "errorkb verify" in result.stderr, result.stderr[-3000:]


def test_a_docs_file_name_that_is_not_utf8_is_left_out_not_a_traceback(project, tmp_path):
    """A file name is bytes; one that is not UTF-8 (`bad\\xff.md` in a pull request) reaches MkDocs as a
    lone surrogate, and its URL quoting raised UnicodeEncodeError: a traceback, no site. Left out and said."""
    os.mkdir(project / "docs" / os.fsdecode(b"folder\xfe"))
    for name in (b"bad\xff.md", b"bad\xfe.png", b"folder\xfe/inside.md"):
        (project / "docs" / os.fsdecode(name)).write_text("# hi\n")
    site = tmp_path / "site"
    result = mkdocs_build(project / "mkdocs.yml", site, strict=False)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert "What it means" in entry_html(site)
    assert result.stderr.count("is not UTF-8") == 3, result.stderr[-3000:]


def test_a_hand_written_page_at_a_generated_page_s_address_by_another_name_is_kept_and_said(project, tmp_path):
    """Two files, one page: docs/verification/index.md is written where the generated verification.md is
    (site/verification/index.html), and on a disk that folds case (macOS, Windows) docs/errors/transformers/
    Head-Dim-List-Length.md is where the entry's page is. The generated page replaced the hand-written one
    without a word (or the two overwrote each other, whichever was written last)."""
    (project / "docs" / "verification").mkdir()
    (project / "docs" / "verification" / "index.md").write_text("# Ours\n\nHAND-WRITTEN-VERIFICATION\n")
    cased = project / "docs" / "errors" / "transformers" / "Head-Dim-List-Length.md"
    cased.write_text("# Verified on every release\n\nHAND-WRITTEN-ENTRY\n")
    (project / "docs" / "Contributing.md").write_text("# Ours too\n")  # beside the site's own contributing.md
    site = tmp_path / "site"
    result = mkdocs_build(project / "mkdocs.yml", site, strict=False)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "HAND-WRITTEN-VERIFICATION" in (site / "verification" / "index.html").read_text(encoding="utf-8")
    assert "errors/transformers/Head-Dim-List-Length.md" in result.stderr, result.stderr[-3000:]
    assert "hides the page errorkb generates" in result.stderr, result.stderr[-3000:]
    assert "docs/Contributing.md and docs/contributing.md become one file" in result.stderr \
        or "docs/contributing.md and docs/Contributing.md become one file" in result.stderr, result.stderr[-3000:]
    pages = [path.relative_to(site).as_posix().casefold() for path in site.rglob("*.html")
             if "contributing" not in path.as_posix().casefold()]  # said above: both are the author's
    assert len(pages) == len(set(pages)), "two pages one file where the disk folds case"


# -- `sitekb.mkdocs_build` forks its builds from a warm interpreter: each what `python -m mkdocs build` afresh is ----

PROBE = '''import json, os, sys, time


def on_config(config):
    seen = {"parent": os.getppid(), "probe": os.environ.get("EKB_PROBE"), "cwd": os.getcwd(), "argv": sys.argv[1:],
            "test": os.environ.get("PYTEST_CURRENT_TEST")}
    with open(os.path.join(os.path.dirname(__file__), "seen.json"), "w") as out:
        json.dump(seen, out)
    action = os.environ.get("EKB_ACTION") or open(os.path.join(os.path.dirname(__file__), "action")).read().strip()
    if action == "raise":
        raise RuntimeError("raised by the hook")
    if action == "sleep":
        time.sleep(120)
    return config
'''


def probed(project: Path, action: str = "") -> Path:
    """`project` with a MkDocs hook (a file, not a module on sys.path) that records the build's process and does
    `action` ("raise", "sleep", or nothing)."""
    (project / "hooks").mkdir(exist_ok=True)
    (project / "hooks" / "probe.py").write_text(PROBE)
    (project / "hooks" / "action").write_text(action)
    config = project / "mkdocs.yml"
    if "hooks:" not in config.read_text():
        config.write_text(config.read_text() + "\nhooks:\n  - hooks/probe.py\n")
    return project / "hooks" / "seen.json"


def fresh_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    """`python -m mkdocs build --strict` in a fresh interpreter, as `mkdocs_build` ran every build before."""
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d", str(site), "--strict"],
                          capture_output=True, text=True, cwd=config.parent, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def test_a_build_is_forked_from_the_warm_builder_only_where_a_fresh_interpreter_would_build_the_same(
        project, tmp_path, monkeypatch):
    """The warm builder's child runs the CLI in the config's folder with its arguments and the test's name, and the
    environment read at import is the one it started with: a build asked for in another environment runs afresh."""
    seen_file = probed(project)
    built = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")
    seen = json.loads(seen_file.read_text())
    assert built.returncode == 0, built.stderr[-3000:]
    assert seen["parent"] != os.getpid(), "not forked from the warm builder: this test checks nothing"
    assert seen["cwd"] == str(project) and seen["argv"][:1] == ["build"] and "--strict" in seen["argv"]
    assert seen["test"] == os.environ["PYTEST_CURRENT_TEST"] and seen["probe"] is None
    assert "Documentation built in" in built.stderr and (tmp_path / "site" / "index.html").is_file()

    monkeypatch.setenv("EKB_PROBE", "seen")
    assert mkdocs_build(project / "mkdocs.yml", tmp_path / "site").returncode == 0
    seen = json.loads(seen_file.read_text())
    assert seen["probe"] == "seen" and seen["parent"] == os.getpid()  # a fresh interpreter, a child of this process


def test_a_build_that_raises_or_exits_says_so_as_a_fresh_interpreter_does(project, tmp_path):
    """An exception no one catches: the same exit code and the traceback's last line as `python -m mkdocs` afresh."""
    probed(project, "raise")
    forked, fresh = mkdocs_build(project / "mkdocs.yml", tmp_path / "one"), fresh_build(project / "mkdocs.yml",
                                                                                         tmp_path / "two")
    assert forked.returncode == fresh.returncode != 0, (forked.returncode, fresh.returncode)
    assert "RuntimeError: raised by the hook" in forked.stderr, forked.stderr[-3000:]
    assert forked.stderr.strip().splitlines()[-1] == fresh.stderr.strip().splitlines()[-1]


def test_a_build_past_its_time_is_stopped_and_the_next_one_runs(project, tmp_path):
    """`timeout` holds for a forked build as for `subprocess.run`: the child is killed, the builder serves the next."""
    probed(project, "sleep")
    with pytest.raises(subprocess.TimeoutExpired):
        mkdocs_build(project / "mkdocs.yml", tmp_path / "site", timeout=2)
    (project / "hooks" / "action").write_text("")
    seen_file = project / "hooks" / "seen.json"
    seen_file.unlink(missing_ok=True)  # written unless the build was stopped before its hook ran
    built = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0 and json.loads(seen_file.read_text())["parent"] != os.getpid(), built.stderr[-3000:]


def test_a_module_in_the_config_s_folder_is_imported_as_a_fresh_interpreter_imports_it(project, tmp_path):
    """`python -m mkdocs` puts its working folder first on sys.path: a `jinja2.py` there is imported instead of the
    installed Jinja, which the warm builder has already imported. Such a folder is built afresh."""
    (project / "jinja2.py").write_text("raise SystemExit('the folder own jinja2 was imported')\n")
    built = mkdocs_build(project / "mkdocs.yml", tmp_path / "site")
    assert built.returncode != 0 and "the folder own jinja2 was imported" in built.stderr, built.stderr[-3000:]
