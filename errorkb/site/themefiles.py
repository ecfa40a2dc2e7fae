"""The theme's files, listed without walking what MkDocs leaves out.

Every build, MkDocs lists every file of the theme's folders (`Files.add_files_from_theme`,
through the Jinja loader's `list_templates`) and then drops the names its patterns exclude, among
them every path with a part that starts with a dot. Material keeps 14,000 icons under
`.icons/`: listing and filtering them is ~0.3 s of CPU per build here, which under `mkdocs serve`
is paid again on every save. The loader below does not walk into dot folders nor list dot files,
so the names MkDocs keeps are the same (tests/site/test_themefiles.py) and the work is ~1% of it.
Templates are still loaded from every folder as before: only the listing changes.
"""

from __future__ import annotations

import os

import jinja2
from mkdocs.theme import Theme


class ThemeLoader(jinja2.FileSystemLoader):
    """`jinja2.FileSystemLoader` whose listing skips dot folders and dot files."""

    def list_templates(self) -> list[str]:
        found: set[str] = set()
        for folder in self.searchpath:
            for base, folders, names in os.walk(folder, followlinks=self.followlinks):
                folders[:] = [name for name in folders if not name.startswith(".")]
                for name in names:
                    if name.startswith("."):
                        continue
                    template = os.path.join(base, name)[len(folder):].strip(os.path.sep).replace(os.path.sep, "/")
                    found.add(template[2:] if template[:2] == "./" else template)  # as Jinja names them
        return sorted(found)


def list_fewer(theme: Theme) -> None:
    """Makes `theme`'s environments (one per build) list templates with `ThemeLoader`."""
    make = theme.get_env
    if getattr(make, "lists_fewer", False):
        return

    def get_env() -> jinja2.Environment:
        env = make()
        loader = env.loader
        if type(loader) is jinja2.FileSystemLoader:  # MkDocs' own; any other is left as it is
            env.loader = ThemeLoader(loader.searchpath, loader.encoding, loader.followlinks)
        return env

    get_env.lists_fewer = True  # type: ignore[attr-defined]
    theme.get_env = get_env  # type: ignore[method-assign]
