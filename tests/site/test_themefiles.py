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


# -- a theme folder a pull request fills (custom_dir): bounded, and nothing from elsewhere (redsite3) --

def theme_config(tmp_path):
    theme = tmp_path / "theme"
    theme.mkdir()
    (theme / "main.html").write_text("<p>{% block content %}{% endblock %}</p>")
    (tmp_path / "docs").mkdir()
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\ntheme:\n  name: null\n  custom_dir: {theme}\n")
    config = load_config(str(tmp_path / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    list_fewer(config.theme)
    return theme, config


def test_a_theme_folder_nested_deeper_than_python_recurses_is_listed_without_a_recursion_error(tmp_path):
    """The listing walked the theme with os.walk, which recurses once per level: a custom_dir 1,200
    deep raised RecursionError at every build."""
    from tests.test_hostile_input import DEPTH, nested

    theme, config = theme_config(tmp_path)
    with nested(theme) as deep:
        (deep / "x.css").write_text("p {}")
        try:
            listed = config.theme.get_env().loader.list_templates()
        except RecursionError:
            pytest.fail("RecursionError")
    assert "main.html" in listed and "/".join(["a"] * DEPTH) + "/x.css" in listed


def test_theme_files_that_link_out_block_or_are_not_utf8_are_neither_listed_nor_loaded(tmp_path, tmp_path_factory):
    """MkDocs copies every listed theme file into the site and Jinja loads a template by name: a link
    to a file outside the theme folder (/proc/self/environ: the build's secrets) was published or
    included as it is, and a FIFO blocked the copy (the build) forever. A name that is not UTF-8 is
    left out too (MkDocs cannot make an address of it)."""
    outside = tmp_path_factory.mktemp("outside")
    (outside / "secret.css").write_text("OUTSIDE-SECRET-71c0")
    theme, config = theme_config(tmp_path)
    (theme / "leak.css").symlink_to(outside / "secret.css")
    (theme / "environ.html").symlink_to("/proc/self/environ")
    (theme / "inside.css").symlink_to(theme / "main.html")  # inside the theme folder: kept
    (theme / "linked").symlink_to(outside)
    os.mkfifo(theme / "pipe.css")
    (theme / os.fsdecode(b"bad\xff.css")).write_text("p {}")
    env = config.theme.get_env()
    listed = env.loader.list_templates()
    assert "main.html" in listed and "inside.css" in listed
    assert not {"leak.css", "environ.html", "pipe.css", "linked/secret.css"} & set(listed), listed
    assert [name for name in listed if not name.isascii()] == []
    for name in ("leak.css", "environ.html", "linked/secret.css"):
        with pytest.raises(jinja2.TemplateNotFound):
            env.get_template(name)
    assert "OUTSIDE-SECRET" not in str(published(config, env))
