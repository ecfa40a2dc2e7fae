"""No file from outside the repository, round nineteen: a folder errorkb or MkDocs reads, made a link out of it.

`docs/`, `docs/errors/`, an entry's folder of entries, a snippet folder, `reports/` or one report file, each a
symbolic link to a copy outside the repository whose every file carries a marker: the build says which link leads
out, and no page, JSON document or search index holds the marker.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.site.sitekb import copy_reports, mkdocs_build, site_project

MARK = "OUTSIDE-MARK-19c4"


def _marked(path) -> None:
    for one in [path] if path.is_file() else path.rglob("*"):
        if one.suffix in (".md", ".py"):
            one.write_text(one.read_text(encoding="utf-8") + f"\n{MARK}\n", encoding="utf-8")
        elif one.suffix == ".yml":
            one.write_text(one.read_text(encoding="utf-8").replace("meaning: |\n", f"meaning: |\n  {MARK}\n", 1),
                           encoding="utf-8")
        elif one.suffix == ".json":
            one.write_text(one.read_text(encoding="utf-8").replace('"reason": "', f'"reason": "{MARK} '),
                           encoding="utf-8")


@pytest.mark.parametrize("linked", ["docs", "docs/errors", "docs/errors/transformers", "snippets/head-dim-list-length",
                                    "reports", "reports/latest.json", "docs/index.md"])
def test_a_folder_or_file_linked_out_of_the_repository_never_reaches_the_site(tmp_path, linked):
    project = site_project(tmp_path / "kb")
    copy_reports(project)
    source = project / linked
    outside = tmp_path / "outside" / source.name
    outside.parent.mkdir()
    if source.is_dir():
        shutil.copytree(source, outside)
        shutil.rmtree(source)
    else:
        shutil.copy(source, outside)
        source.unlink()
    _marked(outside)
    source.symlink_to(outside)
    site = tmp_path / "site"
    built = mkdocs_build(project / "mkdocs.yml", site, strict=False)
    said = built.stdout + built.stderr
    assert "Traceback" not in said, said[-3000:]
    assert any(word in said for word in ("outside", "leads out", "a link")), said[-3000:]
    found = subprocess.run(["grep", "-rl", MARK, str(site)], capture_output=True, text=True).stdout if site.exists() \
        else ""
    assert found == "", found
