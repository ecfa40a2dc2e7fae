"""What errorkb made under the project's cache folder, and what a repository brought there.

errorkb keeps machine-local state under `.errorkb-cache/` (gitignored): the verdict cache, the version matrix's
and the pins' environments, whose interpreters it runs outside the sandbox. Each is the harness's only where no
commit put it there: `git add -f` reaches a gitignored path, and a repository cloned from a stranger may hold
anything under any path. The one rule (`not_the_harness_s`) lives here, below every layer that reads the cache:
the verifier's environments and verdict cache (`verify/`), and the pages' source excerpts (`source/`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

# What a repository's own `.git/config` could have `git ls-files` run (a repository that comes with its `.git`: an
# archive, a shared folder), turned off for the one question errorkb asks.
_NO_COMMANDS = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")


def tracked(path: Path) -> list[str] | None:
    """The paths at or under `path` that the git repository holding it tracks; None where git cannot say (no git,
    no repository, a path beyond a link). Git is asked from the top of the repository, the nearest folder that
    holds `.git` (a cloned repository's own: no commit can make one), never from `path`: asked from inside, git
    took a committed folder holding `HEAD`, `objects/` and `refs/` for a bare repository of its own, which tracks
    nothing, and what the repository committed there read as untracked."""
    git = shutil.which("git")
    where = Path(os.path.abspath(path))
    top = next((place for place in where.parents if os.path.lexists(place / ".git")), None)
    if git is None or top is None:
        return None
    try:
        listed = subprocess.run([git, "-C", str(top), *_NO_COMMANDS, "ls-files", "-z", "--",
                                 where.relative_to(top).as_posix()],
                                capture_output=True, timeout=30, check=False, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    if listed.returncode != 0:  # not inside a repository, or beyond a link (the author's own cache on another disk)
        return None
    return [os.fsdecode(name) for name in listed.stdout.split(b"\0") if name]


def committed_link(folder: Path) -> bool:
    """Whether `folder` is a link that the git repository holding it tracks (a commit made it, whoever's)."""
    return folder.is_symlink() and bool(tracked(folder))


def not_the_harness_s(cache: Path, folder: Path) -> str | None:
    """Why `folder`, below the cache folder `cache`, is not a folder the harness made and filled, with what to
    do; None where nothing says so. The one rule for what errorkb builds under its cache and then runs or
    empties (the version matrix's environments, those of the pins: `requirements.built_python`): the harness
    makes every folder below the cache itself and never commits one, so a link there, a link git tracks in the
    cache's place, or a file git tracks inside is a stranger's (a cloned repository's `git add -f`), and the
    interpreter it holds is theirs. The cache folder itself may be a link of the author's (on another disk).
    Built through such a link, `venv --clear` emptied the folder it led to."""
    if committed_link(cache):
        return (f"{cache} is a link the repository commits, not a folder errorkb made: `git rm --cached "
                f"{cache.name}`, remove the link (what it leads to is kept), and run the command again")
    for part in [folder, *folder.parents]:
        if part == cache:
            break
        if part.is_symlink():
            return (f"{part} is a link, not a folder errorkb made: remove the link (what it leads to is kept; "
                    f"`git rm --cached` it too where git tracks it) and run the command again")
    files = sorted({Path(name).name for name in tracked(folder) or []}) if folder.is_dir() else []
    if files:
        return (f"{folder}: git tracks {len(files)} file(s) in it ({', '.join(files[:3])}): a "
                f"repository's files, not an environment errorkb built. Take them out of the repository (`git rm -r "
                f"--cached {folder}`) and delete the folder; the next run builds its own")
    return None


READY = ".errorkb-ready"  # an environment's mark: built and checked
_judged: dict[tuple[str, str], tuple[tuple[object, ...], str | None]] = {}


def _stat(path: Path, *, content: bool = False) -> tuple[int, ...] | None:
    """What changes when `path` is replaced or turned into a link (the link itself, not its target), and with
    `content` when it is rewritten (git writes its index anew and renames it into place)."""
    try:
        seen = path.lstat()
    except OSError:
        return None
    return (seen.st_ino, seen.st_mode, *((seen.st_mtime_ns, seen.st_size) if content else ()))


def _index_of(path: Path) -> Path | None:
    """The index file of the git repository holding `path` (what `git ls-files` reads: the tracked paths' state),
    found as `tracked` finds the repository; a worktree's `.git` file names its own folder. None where none."""
    where = Path(os.path.abspath(path))
    top = next((place for place in where.parents if os.path.lexists(place / ".git")), None)
    if top is None:
        return None
    dot = top / ".git"
    if dot.is_dir():
        return dot / "index"
    try:
        first = dot.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return dot
    named = first.removeprefix("gitdir:").strip()
    return (top / named / "index") if first.startswith("gitdir:") else dot


def _state(cache: Path, folder: Path) -> tuple[object, ...]:
    """Everything `not_the_harness_s` reads, cheaply: the ready mark (a rebuild), each folder from `folder` up to
    `cache` as itself (a link put in one's place), and the index of the repository holding them (a commit, `git
    add -f`, `git rm --cached`: what git tracks). Git is asked again only when one of these changed."""
    parts = [folder, *[part for part in folder.parents if len(part.parts) >= len(cache.parts)]]
    index = _index_of(folder)
    try:
        mark = (folder / READY).lstat()
        stamp: tuple[int, int] | None = (mark.st_ino, mark.st_mtime_ns)
    except OSError:
        stamp = None
    return (stamp, tuple(_stat(part) for part in parts), str(index), _stat(index, content=True) if index else None)


def refused(cache: Path, folder: Path) -> str | None:
    """Why the environment folder `folder` under the project's cache `cache` is none errorkb built (it is then
    neither run, nor built over, nor its marks or files read), or None (`not_the_harness_s`, the one rule). Asked
    per check and per page: judged again only when what the rule reads changed (`_state`), so a long `mkdocs
    serve` sees a later commit, a rebuild or a link put in a folder's place; one answer kept per folder."""
    key = (str(cache), str(folder))
    state = _state(cache, folder)
    kept = _judged.get(key)
    if kept is None or kept[0] != state:
        kept = _judged[key] = (state, not_the_harness_s(cache, folder))
    return kept[1]


__all__ = ["READY", "committed_link", "not_the_harness_s", "refused", "tracked"]
