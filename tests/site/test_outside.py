"""Nothing outside the repository reaches the site: a source pin naming /proc/self/environ,
/etc/passwd or a `..` path, a snippet that is a symlink to a secret, an entry file that is a
symlink to one. Each is a located problem, and no built page, JSON document or search index
holds a byte of those files (the build's environment included)."""

from __future__ import annotations

import os
import shutil

import pytest

from errorkb.core.load import load_project_entries
from errorkb.core.project import load_project
from errorkb.site import render
from tests.site.sitekb import ROOT, mkdocs_build, site_project

MARKERS = {"snippet": "SNIPPET-SECRET-5c1e", "environ": "ENVIRON-SECRET-77aa", "entry": "ENTRY-SECRET-90d2"}
ENTRIES = ROOT / "docs" / "errors" / "transformers"


def copy_entry(project, source_id: str, new_id: str, **replace: str) -> None:
    text = (ENTRIES / f"{source_id}.yml").read_text(encoding="utf-8").replace(f"id: {source_id}", f"id: {new_id}")
    text = text.split("\nrelated:")[0] + "\nrelated: []\n"
    for old, new in replace.items():
        text = text.replace(old, new)
    (project / "docs" / "errors" / "transformers" / f"{new_id}.yml").write_text(text, encoding="utf-8")
    shutil.copytree(ROOT / "snippets" / source_id, project / "snippets" / new_id)


def test_no_file_outside_the_repository_is_published(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text(f"TOKEN = '{MARKERS['snippet']}'\n")
    (outside / "linked.yml").write_text((ENTRIES / "num-heads-list-length.yml").read_text().replace(
        "id: num-heads-list-length", "id: linked").replace("meaning: |\n", f"meaning: |\n  {MARKERS['entry']}\n"))
    (tmp_path / "kb").mkdir()
    project = site_project(tmp_path / "kb")
    before = project / "snippets" / "head-dim-list-length" / "before.py"
    before.unlink()
    before.symlink_to(outside / "secret.py")
    path = "path: src/transformers/cache_utils.py"
    copy_entry(project, "num-heads-list-length", "environ-pin", **{path: "path: /proc/self/environ"})
    copy_entry(project, "num-heads-list-length", "passwd-pin",
               **{path: "path: src/transformers/../../../../../../../../etc/passwd"})
    (project / "docs" / "errors" / "transformers" / "linked.yml").symlink_to(outside / "linked.yml")

    def line_of(entry: str, text: str) -> int:  # where the entry's copy says it (entries gain lines over time)
        lines = (project / "docs" / "errors" / "transformers" / f"{entry}.yml").read_text(encoding="utf-8")
        return next(number for number, line in enumerate(lines.splitlines(), 1) if text in line)

    problems = [str(p) for p in load_project_entries(load_project(project)).problems]
    before_line = line_of("head-dim-list-length", "before: before.py")
    for where in [f"head-dim-list-length.yml:{before_line}:9: snippet file snippets/head-dim-list-length/before.py "
                  "resolves outside",
                  f"environ-pin.yml:{line_of('environ-pin', '/proc/self/environ')}:9: source.path:",
                  f"passwd-pin.yml:{line_of('passwd-pin', '/etc/passwd')}:9: source.path:",
                  "linked.yml:1:1: resolves outside docs/errors"]:
        assert any(where in p for p in problems), (where, problems)

    site = tmp_path / "site"
    os.environ["ERRORKB_TEST_SECRET"] = MARKERS["environ"]  # in the build's /proc/self/environ
    try:
        result = mkdocs_build(project / "mkdocs.yml", site, strict=False)
    finally:
        del os.environ["ERRORKB_TEST_SECRET"]
    assert result.returncode == 0, result.stderr
    assert (site / "errors" / "transformers" / "num-heads-list-length" / "index.html").is_file()  # the rest builds
    broken = site / "errors" / "transformers" / "head-dim-list-length" / "index.html"
    assert "This entry does not load" in broken.read_text()  # its problems, quoting its own YAML only
    assert not (site / "errors" / "transformers" / "linked" / "index.html").exists()  # an entry file leading out
    published = [p for p in site.rglob("*") if p.is_file() and p.suffix in {".html", ".json", ".md", ".xml", ".txt"}]
    assert any(p.name == "search_index.json" for p in published) and any(p.parent.name == "errors" for p in published)
    for file in published:
        text = file.read_text(encoding="utf-8", errors="replace")
        for marker in [*MARKERS.values(), "root:x:0:0"]:
            assert marker not in text, (file.relative_to(site).as_posix(), marker)


def test_the_renderer_refuses_a_snippet_leading_out_even_if_asked(tmp_path):
    """Defence in depth: were the loader's check bypassed, the page builder still refuses."""
    project = site_project(tmp_path)
    secret = tmp_path.parent / f"{tmp_path.name}-secret.py"
    secret.write_text(f"TOKEN = '{MARKERS['snippet']}'\n")
    guard = project / "snippets" / "head-dim-list-length" / "guard_check_lengths.py"
    guard.unlink()
    guard.symlink_to(secret)
    config = load_project(project)
    entry = next(one.entry for one in load_project_entries(load_project(ROOT)).entries
                 if one.entry.id == "head-dim-list-length")
    from errorkb.core.load import LoadedEntry, Positions

    loaded = LoadedEntry(entry, project / "docs" / "errors" / "transformers" / "head-dim-list-length.yml", Positions())
    (page,) = render.build_pages(config, [loaded], {})
    assert "guard:guard_check_lengths" not in page.snippets and "before" in page.snippets
    assert MARKERS["snippet"] not in render.render_entry(page)
    outside = entry.model_copy(update={"source": entry.source.model_copy(update={"path": "/etc/passwd"})})
    assert render.source_excerpt(config, outside) is None


@pytest.mark.parametrize("site_dir", ["snippets", "reports", "overrides", "snippets/head-dim-list-length/site",
                                      "reports/matrix", "docs/../snippets", ".git"])
def test_a_site_folder_that_is_one_errorkb_reads_is_refused_before_mkdocs_empties_it(tmp_path, site_dir):
    """`site_dir: snippets` in mkdocs.yml (a pull request's, or a slip): `mkdocs build` empties the site folder
    before it writes, so every snippet was deleted and the build went on to say they did not exist."""
    project = site_project(tmp_path)
    (project / ".git").mkdir()
    (project / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (project / "reports" / "matrix").mkdir(exist_ok=True)
    (project / "reports" / "matrix" / "keep.txt").write_text("measured\n")
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + f"\nsite_dir: {site_dir}\n", encoding="utf-8")
    before = sorted(str(path.relative_to(project)) for path in project.rglob("*"))
    built = mkdocs_build(config, project / site_dir, strict=False, timeout=300)
    assert built.returncode != 0
    assert "site_dir" in built.stderr and "mkdocs.yml" in built.stderr and "Traceback" not in built.stderr, \
        built.stderr[-2000:]
    assert sorted(str(path.relative_to(project)) for path in project.rglob("*")) == before


def test_a_site_folder_naming_another_folder_of_the_author_s_keeps_its_files_and_names_the_line(tmp_path):
    """`site_dir: src` (a folder errorkb does not read): `mkdocs build` emptied it before it wrote. A site folder
    may be absent, empty (but for hidden names, which MkDocs keeps: a deploy's .git) or one a build made."""
    project = site_project(tmp_path)
    (project / "src").mkdir()
    (project / "src" / "mine.py").write_text("VALUE = 1\n")
    config = project / "mkdocs.yml"
    text = config.read_text(encoding="utf-8").rstrip("\n") + "\n"
    config.write_text(text + "site_dir: src\n", encoding="utf-8")
    built = mkdocs_build(config, project / "src", strict=False, timeout=300)
    assert (project / "src" / "mine.py").read_text() == "VALUE = 1\n"
    assert sorted(path.name for path in (project / "src").iterdir()) == ["mine.py"]
    line = len(text.splitlines()) + 1
    assert built.returncode != 0 and "Traceback" not in built.stderr, built.stderr[-2000:]
    assert f"mkdocs.yml:{line}: site_dir" in built.stderr and "mine.py" in built.stderr, built.stderr[-2000:]


def test_a_site_folder_given_by_d_that_holds_the_author_s_files_is_refused_and_said_so(tmp_path):
    project = site_project(tmp_path)
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("write it down\n")
    built = mkdocs_build(project / "mkdocs.yml", mine, strict=False, timeout=300)
    assert built.returncode != 0 and "Traceback" not in built.stderr, built.stderr[-2000:]
    assert "-d" in built.stderr and "todo.txt" in built.stderr, built.stderr[-2000:]
    assert sorted(path.name for path in mine.iterdir()) == ["todo.txt"]


def test_a_site_folder_that_is_empty_but_for_hidden_names_or_one_a_build_made_is_built_into(tmp_path):
    """What a site folder may be, decided once (`docstree.site_folder_problem`): a deploy's checkout (only hidden
    names, which MkDocs keeps) is built into, and so is, the next time, the folder that build made (its
    `.errorkb-site` mark), or one a build made before the mark (MkDocs' sitemap.xml.gz)."""
    project = site_project(tmp_path)
    site = tmp_path / "site"
    (site / ".git").mkdir(parents=True)
    (site / ".git" / "HEAD").write_text("ref: refs/heads/gh-pages\n")
    first = mkdocs_build(project / "mkdocs.yml", site, strict=False, timeout=300)
    assert first.returncode == 0, first.stderr[-2000:]
    assert (site / ".git" / "HEAD").is_file() and (site / "index.html").is_file() and (site / ".errorkb-site").is_file()
    (site / "stale.html").write_text("from an older build\n")
    again = mkdocs_build(project / "mkdocs.yml", site, strict=False, timeout=300)
    assert again.returncode == 0, again.stderr[-2000:]
    assert not (site / "stale.html").exists()  # a build's folder is emptied and made again, as MkDocs does
    (site / ".errorkb-site").unlink()  # as a build of an errorkb before the mark left it
    older = mkdocs_build(project / "mkdocs.yml", site, strict=False, timeout=300)
    assert older.returncode == 0, older.stderr[-2000:]


def test_a_site_folder_that_is_a_file_is_said_so_not_a_traceback(tmp_path):
    project = site_project(tmp_path)
    (tmp_path / "notes.txt").write_text("mine\n")
    built = mkdocs_build(project / "mkdocs.yml", tmp_path / "notes.txt", strict=False, timeout=300)
    assert built.returncode != 0 and "Traceback" not in built.stderr, built.stderr[-2000:]
    assert "is not a folder" in built.stderr and (tmp_path / "notes.txt").read_text() == "mine\n", built.stderr[-2000:]


def test_the_mark_of_a_built_site_is_replaced_never_written_through_a_link(tmp_path):
    """MkDocs keeps hidden names through its emptying, so a link planted as the mark would have the build
    write through it into another file."""
    project = site_project(tmp_path)
    site = tmp_path / "site"
    site.mkdir()
    target = tmp_path / "keep.txt"
    target.write_text("the author's\n")
    (site / ".errorkb-site").symlink_to(target)
    built = mkdocs_build(project / "mkdocs.yml", site, strict=False, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    assert target.read_text() == "the author's\n" and not (site / ".errorkb-site").is_symlink()


@pytest.mark.parametrize("how", ["absolute", "up", "link"])
def test_a_theme_folder_outside_the_repository_is_refused_and_none_of_its_files_published(tmp_path, how):
    """`theme.custom_dir` in mkdocs.yml naming a folder outside the repository (`/home/runner/.ssh`, `../..`, or
    `overrides` made a link to one): MkDocs copies every file of it that is no template into the site, as it
    would the docs folder's, which leading out stops the build already; the theme's folder published them."""
    project = site_project(tmp_path / "kb")
    outside = tmp_path / "outside-theme"
    (outside / "deeper").mkdir(parents=True)
    (outside / "secret.txt").write_text("THEME-SECRET-3f1a\n")
    (outside / "deeper" / "id_rsa").write_text("THEME-SECRET-3f1a\n")
    config = project / "mkdocs.yml"
    named = {"absolute": str(outside), "up": "../outside-theme", "link": "overrides"}[how]
    if how == "link":
        shutil.rmtree(project / "overrides", ignore_errors=True)
        (project / "overrides").symlink_to(outside)
    text = config.read_text(encoding="utf-8")
    assert "custom_dir: overrides" in text
    config.write_text(text.replace("custom_dir: overrides", f"custom_dir: {named}"), encoding="utf-8")
    site = tmp_path / "site"
    built = mkdocs_build(config, site, strict=False)
    assert built.returncode != 0 and "Traceback" not in built.stderr, built.stderr[-2000:]
    assert "custom_dir" in built.stderr and "outside the repository" in built.stderr, built.stderr[-2000:]
    published = [path for path in site.rglob("*") if path.is_file()] if site.exists() else []
    assert not [path for path in published if "THEME-SECRET-3f1a" in path.read_text(errors="replace")]
