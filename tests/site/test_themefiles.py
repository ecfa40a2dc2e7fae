"""The theme's files MkDocs publishes are the same whether its loader walks dot folders or not
(errorkb/site/themefiles.py): this repository's theme (Material and the overrides), and a theme
folder with every kind of name MkDocs' patterns treat apart."""

from __future__ import annotations

import os

import jinja2
import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import Files

from errorkb.site.themefiles import ThemeLoader, list_fewer
from tests.kb import ROOT

os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")


def published(config, env: jinja2.Environment) -> list[tuple[str, str]]:
    files = Files([])
    files.add_files_from_theme(env, config)
    return sorted((file.src_uri, file.abs_src_path or "") for file in files)


def test_this_sites_theme_publishes_the_same_files(tmp_path):
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    plain = config.theme.get_env()
    assert type(plain.loader) is jinja2.FileSystemLoader
    list_fewer(config.theme)
    listing = config.theme.get_env()
    assert isinstance(listing.loader, ThemeLoader)
    expected = published(config, plain)
    assert len(expected) > 30  # Material's assets are there (43 files in 9.x)
    assert published(config, listing) == expected
    assert len(listing.loader.list_templates()) < len(plain.loader.list_templates()) / 10


@pytest.mark.parametrize("layout", [
    ["main.html", "assets/app.js", ".icons/a.svg", "deep/.hidden/x.css", "deep/.file.css", "a/b/c.css",
     "README.md", "x.py", "x.pyc", "locales/fr.mo", "page.md", "mkdocs_theme.yml", ".dotfile", "sitemap.xml",
     "Readme.TXT", "assets/.well-known/y.json", "assets/x.y.z.js", "404.html", "assets/Logo.PNG"],
])
def test_every_kind_of_name_publishes_the_same(tmp_path, layout):
    theme = tmp_path / "theme"
    for name in layout:
        (theme / name).parent.mkdir(parents=True, exist_ok=True)
        (theme / name).write_text(name)
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\ntheme:\n  name: null\n  custom_dir: {theme}\n"
                                         "  static_templates: [sitemap.xml]\n")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    plain = config.theme.get_env()
    list_fewer(config.theme)
    assert published(config, config.theme.get_env()) == published(config, plain)
    assert "assets/app.js" in [uri for uri, _ in published(config, plain)]
