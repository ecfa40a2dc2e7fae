"""Whether an entry's checks can run here: optional packages present or absent, device kind,
runtime build.

An unmet requirement makes a check "not run" with the reason, never a failure and never a pass.

A `without:` need whose distribution is installed is met by the sandbox, which hides it from the
check (`absence`: its import packages and its metadata folder, so neither `import` nor
`importlib.metadata` finds it, and no empty folder is left to import as a namespace package).
`absence` is the one place that decides what is hidden, and whether hiding can meet the need:
a distribution whose files another installed distribution also lists, one the library, the
runtime or errorkb need (they would break, not the snippet), or one that does not list its files
cannot be hidden, and its check is not run, with the reason. Without a sandbox nothing is
hidden: the need stays unmet.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from errorkb.core.entry import Entry
from errorkb.core.snippets import Role
from errorkb.plugs import Runtime

if TYPE_CHECKING:
    from packaging.requirements import Requirement


@dataclass(frozen=True)
class Absence:
    """What the sandbox hides from a check to meet its `without:` needs."""

    paths: tuple[str, ...] = ()  # files and folders, absolute and resolved, hidden from the check
    distributions: tuple[str, ...] = ()  # the installed distributions they belong to
    modules: tuple[str, ...] = ()  # the import names they held ('hqq', 'optimum.quanto')
    problem: str | None = None  # why hiding cannot meet the need (then nothing is hidden: not run)


NOTHING_HIDDEN = Absence()


def unmet(entry: Entry, role: Role, device: str, runtime: Runtime, path: list[str] | None = None, *,
          hides: Callable[[], bool] | None = None, keep: Iterable[str] = ()) -> str | None:
    """Why the `role` snippet of `entry` cannot be checked on `device` here, or None; `path`: the
    import path of another environment to look the packages up in (a release's, from outside it).

    `hides`: whether the check runs in a sandbox that can hide what a `without:` names (asked only
    when one is installed); `keep`: the distributions that must stay visible (`essential`)."""
    devices = entry.devices or list(runtime.devices)
    if device not in devices:
        return f"this error only happens on {', '.join(devices)}"
    requires, without, build = entry.needs(role)
    if build is not None and runtime.build() != build:
        return f"needs a {build} build of {runtime.name} (this one is a {runtime.build()} build)"
    for text in requires:
        requirement = _parsed(text)
        installed = _version(requirement.name, path)
        if installed is None:
            return f"needs {text} (not installed)"
        if requirement.specifier and not requirement.specifier.contains(installed, prereleases=True):
            return f"needs {text} (installed: {installed})"
    present = _present(without, path)
    if not present:
        return None
    if hides is None or not hides():
        name, installed = present[0]
        return (f"needs {name} to be absent (installed: {installed}; only the sandbox can hide it, and checks run "
                "without it here)")
    return absence(entry, role, path, keep).problem


def absence(entry: Entry, role: Role, path: list[str] | None = None, keep: Iterable[str] = ()) -> Absence:
    """What to hide so that every installed distribution the snippet's `without:` names is absent."""
    present = _present(entry.needs(role)[1], path)
    if not present:
        return NOTHING_HIDDEN
    named = {_normal(name) for name in keep}  # distributions, and the import names of some (`essential`)
    kept = _required_by(tuple(sorted(named)), _key(path))
    paths: list[str] = []
    modules: list[str] = []
    for name, installed in present:
        if _normal(name) in kept:
            return Absence(problem=f"needs {name} to be absent, and {kept[_normal(name)]} needs it: hiding it "
                                   "would break the check's own imports, not the snippet's")
        found = _hidden_files(_normal(name), _key(path))
        if isinstance(found, str):
            return Absence(problem=f"needs {name} to be absent (installed: {installed}), and the sandbox cannot "
                                   f"hide it: {found}")
        paths += found
        modules += _modules(found, _key(path))
    return Absence(tuple(sorted(set(paths))), tuple(name for name, _ in present), tuple(sorted(set(modules))))


def essential(library: str, runtime: str, bundled: str | None = None) -> tuple[str, ...]:
    """What a check cannot run without (`without:` may not hide it, nor what it needs): errorkb, the
    library, the runtime, the knowledge base's bundled implementation (an import name: `absence` finds
    its distribution, and only when something is to be hidden)."""
    return tuple(dict.fromkeys(["errorkb", library, runtime, *([bundled.split(".")[0]] if bundled else [])]))


def _present(without: list[str], path: list[str] | None) -> list[tuple[str, str]]:
    """(name, installed version) of each `without:` distribution installed in a version it names."""
    found = []
    for text in without:
        requirement = _parsed(text)
        installed = _version(requirement.name, path)
        if installed is not None and (not requirement.specifier or requirement.specifier.contains(installed)):
            found.append((requirement.name, installed))
    return found


def _parsed(text: str) -> Requirement:
    """`text` as a requirement; packaging's parser is imported by the entries that declare needs only
    (a cached run answers the others without it)."""
    from packaging.requirements import Requirement

    return Requirement(text)


def _version(distribution: str, path: list[str] | None = None) -> str | None:
    if path is not None:
        found = next(iter(importlib.metadata.distributions(name=distribution, path=path)), None)
        return found.version if found is not None else None
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


Key = tuple[tuple[str, ...] | None, tuple[int, ...]]


def _key(path: list[str] | None) -> Key:
    """The import path, and when each of its folders last changed: what the answers below are cached
    under (a distribution installed or removed since changes its folder, and the answer with it)."""
    return (tuple(path) if path is not None else None,
            tuple(_changed(folder) for folder in (path if path is not None else sys.path)))


def _changed(folder: str) -> int:
    try:
        return os.stat(folder or ".").st_mtime_ns
    except OSError:
        return 0


def _distributions(key: Key) -> list[importlib.metadata.Distribution]:
    path = key[0]
    return list(importlib.metadata.distributions(path=list(path)) if path is not None
                else importlib.metadata.distributions())


@functools.cache
def _required_by(names: tuple[str, ...], path: Key) -> dict[str, str]:
    """Each distribution `names` need, transitively (extras left out), → the one of `names` that needs it."""
    from packaging.requirements import InvalidRequirement, Requirement

    by_name = {_normal(one.metadata["Name"] or ""): one for one in _distributions(path)}
    # An import name (the bundled implementation's) stands for the distribution that provides it.
    provides = {_normal(top): name for name, one in by_name.items()
                for top in (one.read_text("top_level.txt") or "").split()}
    needed = {name: name for name in names}
    needed.update({provides[name]: name for name in names if name in provides and provides[name] not in needed})
    todo = list(needed)
    while todo:
        name = todo.pop()
        for text in (by_name[name].requires or []) if name in by_name else []:
            try:
                requirement = Requirement(text)
            except InvalidRequirement:
                continue
            if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
                continue
            other = _normal(requirement.name)
            if other not in needed:
                needed[other] = needed[name]
                todo.append(other)
    return needed


@functools.cache
def _owners(path: Key) -> dict[str, dict[str, tuple[str, ...]]]:
    """Installation folder → {file it holds → the distributions that list it}, of every distribution there."""
    owners: dict[str, dict[str, tuple[str, ...]]] = {}
    for dist in _distributions(path):
        if getattr(dist, "_path", None) is None:
            continue
        base = os.path.realpath(str(dist.locate_file("")))
        files, owner = owners.setdefault(base, {}), _normal(dist.metadata["Name"] or "")
        for file in dist.files or []:
            where = os.path.normpath(os.path.join(base, str(file)))
            files[where] = (*files.get(where, ()), owner)
    return owners


@functools.cache
def _hidden_files(name: str, path: Key) -> list[str] | str:
    """The files and folders that hide distribution `name`, or why it cannot be hidden.

    In each folder it is installed in: its metadata folder, and for each file its RECORD lists, the
    highest folder above it that holds no file another distribution lists (so `optimum/quanto` goes,
    and `optimum/` with it where nothing else lives there), else the file itself."""
    hidden: set[str] = set()
    for dist in _distributions(path):
        if _normal(dist.metadata["Name"] or "") != name:
            continue
        info = getattr(dist, "_path", None)
        if info is None or dist.files is None:
            return f"{name} does not list its files (no RECORD)"
        base = os.path.realpath(str(dist.locate_file("")))
        mine = {os.path.normpath(os.path.join(base, str(file))) for file in dist.files}
        theirs = {file: others for file, owners in _owners(path).get(base, {}).items()
                  if (others := [owner for owner in owners if owner != name])}
        shared = sorted(file for file in mine if file in theirs)
        if shared:
            return f"its file {os.path.relpath(shared[0], base)} is also {' and '.join(theirs[shared[0]])}'s"
        above = {parent for file in theirs for parent in _parents(file, base)}
        hidden.add(os.path.realpath(str(info)))
        for real in mine:
            if not _within(real, base) or real == base:
                continue  # a script in bin/, data elsewhere: no import finds it there
            if real in above:  # a RECORD lists files; one that names a folder of others' would hide them
                return f"it lists {os.path.relpath(real, base)}, a folder that holds other distributions' files"
            hidden.add(next((folder for folder in reversed(_parents(real, base)) if folder not in above), real))
    return sorted(path for path in hidden if not any(_within(path, other) and path != other for other in hidden))


def _modules(hidden: list[str], path: Key) -> list[str]:
    """The import names the hidden files and folders held, from the installation folder they lie in."""
    bases = sorted(_owners(path), key=len, reverse=True)
    names = []
    for item in hidden:
        base = next((folder for folder in bases if _within(item, folder) and item != folder), None)
        if base is None:
            continue
        parts = os.path.relpath(item, base).split(os.sep)
        parts[-1] = parts[-1].split(".")[0] if not os.path.isdir(item) else parts[-1]
        if all(part.isidentifier() and part != "__pycache__" for part in parts):
            names.append(".".join(parts))
    return names


def _parents(file: str, base: str) -> list[str]:
    """The folders between `base` (left out) and `file`, innermost first."""
    parents = []
    folder = os.path.dirname(file)
    while _within(folder, base) and folder != base:
        parents.append(folder)
        folder = os.path.dirname(folder)
    return parents


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


__all__ = ["Absence", "absence", "essential", "unmet"]
