"""Where the documented library's package lies in its repository (`source_root`), how the repository names a
release's tag (`tag`) and, where the metadata names no repository, its address (a checkout's `origin`), read from
the library's own source on this machine.

A wheel's files (RECORD, top_level.txt) say where a package is installed, never where it lies in the repository,
and nothing installed names the tags: without network, only the library's source says them. `init` reads it where
the metadata points at it (`direct_url.json`, which pip writes for `pip install .`, `pip install -e .` or a local
sdist) or where `--checkout` names it: a checkout's package folder and git tags, an sdist's layout (it has no tags).
What it holds is read, never trusted: a tag that is not a plain word, a package found in two folders, an archive
that will not open, each leaves the value unread (init then assumes it, and says so), never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import tarfile
import zipfile
from collections import Counter
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from errorkb.core.tags import check_format, tag_of

MAX_DEPTH = 3  # folders above the package a checkout may hold it under (`python/` of protobuf's `google/protobuf`)
MAX_ENTRIES = 20_000  # folders looked into, archive members read, tags read: a bound on what a stranger's tree costs
_SKIPPED = {"node_modules", "site-packages", "__pycache__", "build", "dist", "venv"}  # never the source
_TAG = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+/-]{0,99}")  # a tag init writes into the profile and prints as it is


@dataclass(frozen=True)
class Source:
    """What the library's source on this machine says: each value None where it does not say it."""

    where: Path
    source_root: str | None
    tag: str | None
    origin: str | None = None  # the address of the checkout's `origin` remote, as https://host/owner/name


def installed_from(found: metadata.Distribution) -> Path | None:
    """The local folder or archive pip installed `found` from (its `direct_url.json`), where it still exists."""
    try:
        data = json.loads(found.read_text("direct_url.json") or "null")
    except ValueError:
        return None
    url = data.get("url") if isinstance(data, dict) else None
    if not isinstance(url, str):
        return None
    parts = urlsplit(url)
    if parts.scheme != "file" or parts.netloc not in ("", "localhost") or "\x00" in parts.path:
        return None
    path = Path(unquote(parts.path))
    return path if path.is_dir() or path.is_file() else None


def read(where: Path, name: str, release: str, *, single: bool) -> Source:
    """What the checkout (a folder) or the sdist (an archive) at `where` says of the package `name` (dotted, for a
    package inside a namespace package; one module `name.py` where `single`) and of `release`'s tag."""
    wanted = (f"{name}.py",) if single else (*name.split("."), "__init__.py")
    if where.is_dir():
        git = _git_folder(where)
        return Source(where, _root_in_folder(where, wanted), _tag(git, release), _origin(git))
    return Source(where, _root_in_archive(where, wanted), None)


def _root_in_folder(top: Path, wanted: tuple[str, ...]) -> str | None:
    """The one folder under `top` (breadth first, no link followed, hidden and build folders skipped) holding the
    package, relative to `top` ("" for the top itself); None where none or several do."""
    found, level, seen = [], [top], 0
    for _ in range(MAX_DEPTH + 1):
        below = []
        for folder in level:
            if top.joinpath(folder, *wanted).is_file() and not top.joinpath(folder, wanted[0]).is_symlink():
                found.append("" if folder == top else folder.relative_to(top).as_posix())
            try:
                with os.scandir(folder) as entries:
                    for entry in entries:
                        seen += 1
                        if seen > MAX_ENTRIES:
                            return None
                        if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".") \
                                and entry.name not in _SKIPPED and entry.name != wanted[0]:
                            below.append(Path(entry.path))
            except OSError:
                continue
        level = below
    return _one(found)


def _root_in_archive(archive: Path, wanted: tuple[str, ...]) -> str | None:
    """The folder of an sdist (`name-1.0/src/...` inside it) holding the package; None where none or several do, or
    where the archive is no sdist (a wheel)."""
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as opened:
                names = opened.namelist()[:MAX_ENTRIES]
        else:
            with tarfile.open(archive) as opened:
                names = []
                for member in opened:
                    names.append(member.name)
                    if len(names) >= MAX_ENTRIES:
                        break
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, ValueError):
        return None
    if len({PurePosixPath(name).parts[0] for name in names if PurePosixPath(name).parts}) != 1:
        return None  # no sdist (one folder, `name-1.0/`, holds all of it): a wheel holds the package as installed
    found = []
    for name in names:
        parts = PurePosixPath(name).parts[1:]  # below the sdist's own top folder
        if parts[len(parts) - len(wanted):] == wanted and len(parts) - len(wanted) <= MAX_DEPTH:
            found.append("/".join(parts[:len(parts) - len(wanted)]))
    return _one(found)


def _one(found: list[str]) -> str | None:
    roots = set(found)
    root = roots.pop() if len(roots) == 1 else None
    return root if root is not None and all(_TAG.fullmatch(part) for part in root.split("/") if part) else None


def _tag(git: Path, release: str) -> str | None:
    """The tag format of the checkout's git tags: the one the installed release's own tag has, else the one most of
    its release-like tags share; None where no tag, or no one format, says it."""
    tags = [tag for tag in _tags(git) if _TAG.fullmatch(tag)]
    fills = [(release, "{release}")]
    numbers = tag_of("{major}.{minor}.{micro}", release)
    if numbers != release:  # 3.20 tagged v3.20.0
        fills.append((numbers, "{major}.{minor}.{micro}"))
    own = {_format(tag, value, field) for tag in tags for value, field in fills}
    own.discard(None)
    if own:
        return own.pop() if len(own) == 1 else None
    shapes = Counter(_format(tag, found.group(), "{release}") for tag in tags
                     for found in [re.search(r"\d+(?:\.\d+)+", tag)] if found)
    shapes.pop(None, None)
    ranked = shapes.most_common(2)
    return ranked[0][0] if ranked and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]) else None


def _format(tag: str, value: str, field: str) -> str | None:
    """`tag` with `value` (a release, standing alone: never `1.0` of `1.0.1`) made `field`, where that is a format."""
    found = re.search(rf"(?<![0-9.]){re.escape(value)}(?![0-9]|\.[0-9])", tag)
    if found is None:
        return None
    candidate = tag[:found.start()] + field + tag[found.end():]
    try:
        return check_format(candidate)
    except ValueError:
        return None


def _git_folder(checkout: Path) -> Path:
    """The folder holding the checkout's refs and config: `.git`, or for a worktree or a submodule (`.git` a file
    saying `gitdir: PATH`) the folder it names, and that one's common folder."""
    git = checkout / ".git"
    try:
        if git.is_file():
            pointed = git.read_text(encoding="utf-8", errors="replace")[:4096].removeprefix("gitdir:").strip()
            git = (checkout / pointed).resolve()
            common = git / "commondir"
            if common.is_file():
                git = (git / common.read_text(encoding="utf-8", errors="replace")[:4096].strip()).resolve()
    except (OSError, ValueError, RuntimeError):
        pass
    return git


def _origin(git: Path) -> str | None:
    """The `origin` remote's address in the checkout's config (`git@github.com:me/lib.git`, `ssh://...`, `https://`),
    written as https://host/owner/name; None where there is none."""
    try:
        with (git / "config").open(encoding="utf-8", errors="replace") as lines:
            section = ""
            for number, line in enumerate(lines):
                if number > MAX_ENTRIES:
                    return None
                line = line.strip()
                if line.startswith("["):
                    section = line
                elif section.replace(" ", "") == '[remote"origin"]' and line.partition("=")[0].strip() == "url":
                    return _https(line.partition("=")[2].strip())
    except (OSError, ValueError):
        return None
    return None


def _https(url: str) -> str | None:
    scp = re.fullmatch(r"[A-Za-z0-9_.-]+@([A-Za-z0-9.-]+):/?([^\s:]+)", url)  # git@github.com:me/lib.git
    if scp:
        return f"https://{scp.group(1)}/{scp.group(2)}"
    parts = urlsplit(url)
    if parts.scheme in ("https", "http", "ssh", "git") and parts.hostname:
        return f"https://{parts.hostname}{parts.path}"
    return None


def _tags(git: Path) -> list[str]:
    """The names of the checkout's git tags (packed and loose), read from its files: git is not run."""
    try:
        tags = []
        packed = git / "packed-refs"
        if packed.is_file():
            with packed.open(encoding="utf-8", errors="replace") as lines:
                for line in lines:
                    ref = line.rstrip("\n").partition(" ")[2]
                    if ref.startswith("refs/tags/"):
                        tags.append(ref.removeprefix("refs/tags/"))
                    if len(tags) >= MAX_ENTRIES:
                        break
        loose = git / "refs" / "tags"
        for folder, _, names in os.walk(loose):
            tags += [(Path(folder) / name).relative_to(loose).as_posix() for name in names]
            if len(tags) >= MAX_ENTRIES:
                break
        return tags
    except (OSError, ValueError):
        return []
