"""The folders MkDocs reads, measured before MkDocs walks them: bounded, and inside the repository.

MkDocs lists `docs/` with a recursive `os.walk` that follows links to folders, before any plugin's
`on_files` sees a file. A pull request can therefore make the build raise RecursionError (a tree
1,200 folders deep is 2.4 KB of path), never end (two links to `.` make 2**40 paths: the kernel
stops a path only after 40 links), or publish another folder of the machine (a link to one). The
plugin's `on_config` walks the tree first as MkDocs will, without recursion and each real folder
on a path once, and stops the build with the folder to fix (`tree_problem`); `on_files` then
leaves out any file whose real path lies outside the repository (`outside`).

"The repository" is the project folder the plugin reads (`repository`): the folder of mkdocs.yml,
or the plugin's `root`, which must hold mkdocs.yml (a `root` elsewhere would publish the entries,
snippets and reports of another folder).
"""

from __future__ import annotations

import os
from pathlib import Path

MAX_DEPTH = 32  # folders below docs/ (the deepest real page is 3 down); MkDocs recurses once per level
MAX_FOLDERS = 10_000  # folders MkDocs would list, links followed: links between folders multiply paths


def repository(config_file: Path, root: str | None) -> Path:
    """The project folder: `root`, written relative to mkdocs.yml's folder, or that folder.
    ValueError when `root` leads out of the repository: absolute, through a link, or up (`..`) to a
    folder that is no project (holds no pyproject.toml); a folder below, or the project above a
    mkdocs.yml kept in a subfolder, is the repository's."""
    here = config_file.parent.resolve()
    if root is None:
        return here
    written = Path(os.path.normpath(here / root))
    try:
        chosen = (here / root).resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a loop of links (RuntimeError before Python 3.13)
        chosen = None
    why = ("absolute" if Path(root).is_absolute() else
           "missing, or through a symbolic link" if chosen is None or chosen != written or not chosen.is_dir() else
           "up to a folder without a pyproject.toml" if not chosen.is_relative_to(here)
           and not (chosen / "pyproject.toml").is_file() else None)
    if why is not None:
        raise ValueError(f"{config_file.name}: plugins.errorkb root: '{root}' leads out of the repository ({why}); "
                         f"name the project folder relative to {config_file.name}, or remove the setting")
    assert chosen is not None
    return chosen


def outside(path: str | os.PathLike[str], repo: Path) -> bool:
    """Whether the file at `path` is, once its links are followed, outside `repo` (or unresolvable)."""
    try:
        return not Path(path).resolve(strict=True).is_relative_to(repo)
    except (OSError, RuntimeError):
        return True


def tree_problem(docs: Path, repo: Path) -> str | None:
    """What in `docs` MkDocs must not walk, said with the folder to fix, or None: a folder deeper
    than `MAX_DEPTH`, a link to a folder that leads out of `repo` or loops (to a folder above it),
    more than `MAX_FOLDERS` folders. Walked as MkDocs walks (links to folders followed), without
    recursion, each folder's real path at most once on one path."""
    if not docs.is_dir():
        return None  # MkDocs says so itself

    def shown(path: str | os.PathLike[str]) -> str:  # as written: links not followed
        return os.path.relpath(path, docs.parent)

    if not Path(os.path.realpath(docs)).is_relative_to(repo):
        return f"{docs}: the docs folder lies outside the repository ({repo}); name a folder inside it"

    stack: list[tuple[str, int, frozenset[str]]] = [(os.fspath(docs), 0, frozenset([os.path.realpath(docs)]))]
    seen = 0
    while stack:
        current, depth, above = stack.pop()
        seen += 1
        if seen > MAX_FOLDERS:
            return (f"{shown(current)}: more than {MAX_FOLDERS:,} folders under {shown(docs)}, links followed "
                    "(links between folders multiply the paths MkDocs lists); remove folders or links")
        try:
            with os.scandir(current) as listing:
                folders = sorted(one.path for one in listing if _is_folder(one))
        except OSError:
            continue
        below = []
        for folder in folders:
            real = os.path.realpath(folder)
            if not Path(real).is_relative_to(repo):
                return (f"{shown(folder)}: a link that leads out of the repository (to {real}); MkDocs would "
                        "publish that folder: remove the link")
            if real in above:
                return (f"{shown(folder)}: a link that loops (to {shown(real)}, a folder above it); MkDocs would "
                        "follow it without end: remove the link")
            if depth + 1 > MAX_DEPTH:
                return (f"{shown(folder)}: folders nested more than {MAX_DEPTH} deep below {shown(docs)} "
                        "(MkDocs walks them recursively and fails): flatten or remove it")
            below.append((folder, depth + 1, above | {real}))
        stack += reversed(below)  # the first in name order is walked (and said) first
    return None


def theme_problem(custom_dir: str | None, repo: Path) -> str | None:
    """Why the theme's own folder (mkdocs.yml's `theme.custom_dir`) may not be read, or None: it lies outside
    `repo` (absolute, up through `..`, or a link). MkDocs copies every file of it that is no template into the
    site, as it does the docs folder's (`tree_problem`): `custom_dir: /home/runner/.ssh` published the keys."""
    if custom_dir is None or Path(os.path.realpath(custom_dir)).is_relative_to(repo):
        return None
    return (f"theme.custom_dir {custom_dir}: the theme's folder lies outside the repository ({repo}), and MkDocs "
            "would publish its files; name a folder inside it")


def site_problem(site: Path, kept: list[tuple[str, Path]], repo: Path) -> str | None:
    """Why `site` may not be the site folder (said after where it was chosen: `site_dir_origin`), or None.
    `mkdocs build` empties its site folder before it writes (every file and folder in it but hidden ones), so
    one that is, holds or lies inside a folder in `kept` (what errorkb reads, described: the snippets, the
    reports, the theme's folder, .git) would lose the author's files, even one empty now (the pages written
    into it would be read back); one that is or holds the repository, the whole of it; and any other one
    that holds files no build made (`site_folder_problem`), those."""
    real = Path(os.path.realpath(site))
    for what, folder in [("the repository", repo), *kept]:
        folder = Path(os.path.realpath(folder))
        relation = ("is" if real == folder else "holds" if folder.is_relative_to(real)
                    else "lies inside" if folder != repo and real.is_relative_to(folder) else None)
        if relation is not None:
            return (f"{relation} {what} ({folder}): `mkdocs build` empties the site folder before it writes, "
                    "so its files would be deleted; set site_dir in mkdocs.yml (or -d) to a folder of the built "
                    "site alone, such as site")
    return site_folder_problem(site)


# What a site folder may be, decided here once. `mkdocs build` empties its site folder before it writes (every
# name in it but hidden ones: a deploy's .git stays), so that folder may be absent, hold hidden names alone, or
# be one a build made: it holds the mark the plugin leaves after each build (hidden, so MkDocs keeps it through
# its emptying and a build that fails half-way), or, made before the mark, MkDocs' own sitemap.xml.gz or search
# index. Anything else is a folder of the author's, and a build would delete its files.
MARK = ".errorkb-site"
_BUILT = (MARK, "sitemap.xml.gz", "search/search_index.json")


def site_folder_problem(site: Path) -> str | None:
    """What in `site` a build would delete that no build made (said with the first names, and what to do), or
    None; a site folder that is no folder (a file) is said too."""
    try:
        names = sorted(name for name in os.listdir(site) if not name.startswith("."))
    except FileNotFoundError:
        return None  # MkDocs makes it
    except OSError as error:
        return (f"is not a folder errorkb can list ({error.strerror or error}); set site_dir in mkdocs.yml (or -d) "
                "to an absent or empty folder, or one a build made, such as site")
    if not names or any(os.path.isfile(os.path.join(site, built)) for built in _BUILT):
        return None
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3:,} more" if len(names) > 3 else "")
    return (f"holds files no build of a site made ({shown}): `mkdocs build` empties the site folder before it "
            "writes, so they would be deleted; set site_dir in mkdocs.yml (or -d) to an absent or empty folder, or "
            "one a build made, such as site (or move those files away)")


def site_dir_origin(config_file: Path, site: Path) -> str:
    """Where the site folder was chosen, as the start of a problem: `mkdocs.yml:LINE: site_dir X` when
    mkdocs.yml's own `site_dir` names it, else MkDocs' `-d` or an INHERITed file (or its default, `site`)."""
    import yaml

    try:
        with open(config_file, encoding="utf-8-sig") as handle:
            node = yaml.compose(handle, Loader=yaml.SafeLoader)  # nodes only: mkdocs.yml's own tags are not built
    except (OSError, ValueError, RecursionError, yaml.YAMLError):
        node = None
    pairs = node.value if isinstance(node, yaml.MappingNode) else []
    for key, value in pairs:
        if isinstance(key, yaml.ScalarNode) and key.value == "site_dir" and isinstance(value, yaml.ScalarNode):
            where = f"{config_file.name}:{value.start_mark.line + 1}"
            if os.path.normpath(config_file.parent / value.value) == os.path.normpath(site):
                return f"{where}: site_dir {value.value}"
            return f"site_dir {site} (mkdocs build -d; {where} says {value.value})"
    if os.path.normpath(site) == os.path.normpath(config_file.parent / "site"):
        return f"site_dir {site} ({config_file.name} sets none: MkDocs' default)"
    return f"site_dir {site} (mkdocs build -d, or a file {config_file.name} INHERITs)"


def utf8_name(name: str) -> bool:
    """A name the file system gave as UTF-8 (a byte that is not arrives as a lone surrogate, which
    MkDocs cannot make an address of)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _is_folder(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()  # follows links, as MkDocs' walk does
    except OSError:
        return False
