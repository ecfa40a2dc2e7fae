"""The theme's files, listed without walking what MkDocs leaves out.

Every build, MkDocs lists every file of the theme's folders (`Files.add_files_from_theme`,
through the Jinja loader's `list_templates`) and then drops the names its patterns exclude, among
them every path with a part that starts with a dot. Material keeps 14,000 icons under
`.icons/`: listing and filtering them is ~0.3 s of CPU per build here, which under `mkdocs serve`
is paid again on every save. The loader below does not walk into dot folders nor list dot files,
so the names MkDocs keeps are the same (tests/site/test_themefiles.py) and the work is ~1% of it.
Templates are still loaded from every folder as before: only the listing changes.

A theme folder is also input (a knowledge base's `custom_dir` arrives in pull requests), so the
listing walks without recursion (`core.snippets.walk`: os.walk recursed once per level, and a folder
1,200 deep raised RecursionError), and lists only regular files whose real path lies inside their
theme folder, named in UTF-8: MkDocs copies every listed file into the site, and a link to a file
elsewhere (/proc/self/environ) was published, a FIFO blocked the copy forever. A template is
loaded only from inside its folder too: `{% include %}` of a link leading out is not found.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

import jinja2
from jinja2.loaders import split_template_path
from mkdocs.theme import Theme

from errorkb.core.snippets import walk
from errorkb.site.docstree import utf8_name


class ThemeLoader(jinja2.FileSystemLoader):
    """`jinja2.FileSystemLoader` whose listing skips dot folders and dot files."""

    def list_templates(self) -> list[str]:
        found: set[str] = set()
        for folder in self.searchpath:
            inside = os.path.realpath(folder)
            for base, folders, names in walk(folder):
                folders[:] = [name for name in folders if not name.startswith(".") and utf8_name(name)]
                for name in names:
                    path = os.path.join(base, name)
                    if name.startswith(".") or not utf8_name(name) or not _regular_inside(path, inside):
                        continue
                    template = path[len(folder):].strip(os.path.sep).replace(os.path.sep, "/")
                    found.add(template[2:] if template[:2] == "./" else template)  # as Jinja names them
        return sorted(found)

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        """Jinja's, refused (not found) when the file Jinja would open leads out of its theme folder
        (looked at before it is read: a link to /dev/zero or a huge file is never opened)."""
        pieces = split_template_path(template)
        for folder in self.searchpath:
            path = os.path.join(folder, *pieces)
            if os.path.isfile(path):  # the file Jinja's own search stops at
                if not _regular_inside(path, os.path.realpath(folder)):
                    raise jinja2.TemplateNotFound(template)
                break
        return super().get_source(environment, template)


def _regular_inside(path: str, inside: str) -> bool:
    """A regular file (links followed) whose real path lies inside the folder `inside`."""
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False
    return regular and os.path.realpath(path).startswith(inside.rstrip(os.sep) + os.sep)


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
