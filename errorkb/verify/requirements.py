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
import hashlib
import importlib.metadata
import os
import re
import subprocess
import sys
import sysconfig
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from errorkb.core.cachetrust import READY, refused
from errorkb.core.entry import Entry
from errorkb.core.interpreter import python_command
from errorkb.core.snippets import Role
from errorkb.plugs import Runtime
from errorkb.results.records import Code
from errorkb.verify.paths import BASE_PTH, environment_path

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
    present, shadowed = _present(without, path), _shadowed(requires, path)
    if not present and not shadowed:
        return None
    if hides is None or not hides():
        if present:
            name, installed = present[0]
            return (f"needs {name} to be absent (installed: {installed}; only the sandbox can hide it, and checks "
                    "run without it here)")
        name, folder = shadowed[0]
        return (f"needs one copy of {name}, and there is another in {folder} (only the sandbox can hide it, and "
                "checks run without it here)")
    return absence(entry, role, path, keep).problem


THIS_ONE = "`python -m errorkb.verify.requirements --build`"  # builds the environments of this one's pins


def not_met(entry: Entry, role: Role, device: str, runtime: Runtime, cache: Path, base: Path, *,
            path_of: Callable[[Path], list[str] | None] | None = None, hides: Callable[[], bool] | None = None,
            keep: Iterable[str] = (), build: str = THIS_ONE) -> tuple[Code, str] | None:
    """Is this need met here, and if not, why: the one answer, which the engine records for a check and
    the knowledge base's test holds its report to. `base`: the interpreter of the environment the check
    runs on (this one, or a release's). A snippet that pins an older release of a distribution installed
    there runs in the environment of its pins (`runs_in`) when built; else its need is unmet, with what
    builds it (`build`: the command, for `base`) or why that failed. Only a check whose needs are met is
    "not run" for want of its device."""
    path_of = path_of or _path_of
    python = runs_in(entry, role, cache, base, path_of)
    need = unmet(entry, role, device, runtime, path_of(python), hides=hides, keep=keep)
    if need:
        needed = pins(entry, role, path_of(base)) if python == base else ()
        failed = pinned_failure(cache, needed, _folder(base)) if needed else None
        if failed:
            need += f"; building an environment that has it failed: {failed.strip()[-300:]}"
        return Code.UNMET_NEED, need + (f"; {build} builds an environment that has it" if needed else "")
    if not runtime.device_present(device):
        return Code.NO_DEVICE, f"no {device} device"
    return None


def runs_in(entry: Entry, role: Role, cache: Path, base: Path,
            path_of: Callable[[Path], list[str] | None] | None = None) -> Path:
    """The interpreter that runs the snippet on the environment of `base`: the environment of its pins
    layered on it (`pinned_env`) where one is needed and built, else `base` itself."""
    needed = pins(entry, role, (path_of or _path_of)(base))
    return (pinned_python(cache, needed, _folder(base)) if needed else None) or base


def _path_of(python: Path) -> list[str] | None:
    """Where `python` finds packages: None for this interpreter (`importlib.metadata`'s own path)."""
    return None if python == Path(sys.executable) else environment_path(python)


def _folder(base: Path) -> Path | None:
    """The environment folder of interpreter `base`; None for this one's (its pins' key is theirs alone)."""
    return None if base == Path(sys.executable) else base.parent.parent


def absence(entry: Entry, role: Role, path: list[str] | None = None, keep: Iterable[str] = ()) -> Absence:
    """What to hide so that every installed distribution the snippet's `without:` names is absent, and
    so that a `requires:` distribution has one copy only, the first on the path (an environment that
    meets a pin, `pinned_env`, holds its own copy before the one of the environment it sees)."""
    requires, without, _ = entry.needs(role)
    present = _present(without, path)
    shadowed = _shadowed(requires, path)
    if not present and not shadowed:
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
    for name, folder in shadowed:
        found = _hidden_files(_normal(name), _key(path), folder)
        if isinstance(found, str):
            return Absence(problem=f"needs {name} from {folder} hidden (another copy comes first), and the sandbox "
                                   f"cannot hide it: {found}")
        paths += found
    return Absence(tuple(sorted(set(paths))), tuple(name for name, _ in present), tuple(sorted(set(modules))))


def _shadowed(requires: list[str], path: list[str] | None) -> list[tuple[str, str]]:
    """(name, folder) of each copy of a `requires:` distribution after the first on the path."""
    found = []
    for text in requires:
        name = _parsed(text).name
        copies = importlib.metadata.distributions(name=name, path=path) if path is not None \
            else importlib.metadata.distributions(name=name)
        folders = list(dict.fromkeys(os.path.realpath(str(one.locate_file(""))) for one in copies))
        found += [(name, folder) for folder in folders[1:]]
    return found


# -- an environment that meets the `requires:` this one has in another release -------------------


def pins(entry: Entry, role: Role, path: list[str] | None = None) -> tuple[str, ...]:
    """The snippet's `requires:` that the environment (`path`: another's import path; None: this one) has
    installed in a release outside their range (`optimum-quanto<0.2.6` where 0.2.7 is installed), which an
    environment of their own can meet (`pinned_env`); sorted, so that every snippet that needs the same ones
    shares it. Entries come from pull requests: only a release of a distribution installed there, from the
    index, never a URL."""
    found = []
    for text in entry.needs(role)[0]:
        requirement = _parsed(text)
        installed = _version(requirement.name, path)
        if installed is not None and requirement.specifier and requirement.url is None \
                and not requirement.specifier.contains(installed, prereleases=True):
            found.append(text)
    return tuple(sorted(found))


def pinned_env(cache: Path, needed: tuple[str, ...], base: Path | None = None) -> Path:
    """The folder of the environment that meets `needed` (`pins`), under the project's cache, layered on
    `base` (a release's environment folder, the version matrix's; None: this one). Keyed by both: two
    releases never share one, as each sees its own release through it."""
    label = re.sub(r"[^A-Za-z0-9.]+", "-", "+".join(needed))[:60].strip("-")
    key = "\n".join([*needed, *([f"on {os.path.realpath(base)}"] if base is not None else [])])
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    return cache / "needs" / (f"{label}-{digest}" if base is None else f"{base.name}+{label}-{digest}")


FAILED = ".errorkb-failed"  # an environment's mark: its build failed (READY, built and checked: cachetrust)


def built_python(cache: Path, folder: Path) -> Path | None:
    """The interpreter of the environment in `folder` where errorkb built it: its ready mark is there and it is
    the harness's own (`refused`). The one test of "this environment is built", for a release's (the version
    matrix's) and for the pins' alike."""
    if not (folder / READY).is_file() or refused(cache, folder) is not None:
        return None
    return folder / "bin" / "python"


def pinned_python(cache: Path, needed: tuple[str, ...], base: Path | None = None) -> Path | None:
    """Its interpreter, where it is built; None where it is not (the check is then not run)."""
    return built_python(cache, pinned_env(cache, needed, base))


def pinned_failure(cache: Path, needed: tuple[str, ...], base: Path | None = None) -> str | None:
    """Why its last build failed (remembered, so that the matrix does not try again each run), or why it is no
    environment errorkb built (`refused`), or None."""
    folder = pinned_env(cache, needed, base)
    if (why := refused(cache, folder)) is not None:
        return why
    failed = folder / FAILED
    return failed.read_text(encoding="utf-8") if failed.is_file() else None


def build_pinned_env(cache: Path, needed: tuple[str, ...], pip: tuple[str, ...] = (),
                     base: Path | None = None) -> str | None:
    """Build the environment that meets `needed`, as the version matrix builds a release's: a venv that
    sees the packages of `base` (a release's environment folder; None: this one) through a .pth file, with
    the pinned releases installed into it alone (`--no-deps`: all else is the base's; the copy there is
    hidden from its checks, `absence`), from wheels only: installing one runs none of its code, and every
    check that imports it runs in the sandbox. `pip`: more arguments for pip (a local index). None when
    built, else why not (also remembered: `pinned_failure`); nothing is built where the folder is not the
    harness's own (`refused`: `venv --clear` would empty what a link leads to)."""
    folder = pinned_env(cache, needed, base)
    if (why := refused(cache, folder)) is not None:
        return why
    python = folder / "bin" / "python"
    (folder / READY).unlink(missing_ok=True)
    (folder / FAILED).unlink(missing_ok=True)
    below = os.path.realpath(next(base.glob("lib/python*/site-packages"))) if base is not None \
        else sysconfig.get_paths()["purelib"]
    steps = [python_command(sys.executable, "-m", "venv", "--clear", "--without-pip", str(folder)),
             python_command(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                            "--disable-pip-version-check", "--no-deps", "--ignore-installed", "--only-binary", ":all:",
                            *pip, *needed)]
    for number, step in enumerate(steps):
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=900)
        except subprocess.TimeoutExpired:
            return f"timed out after 900 s: {' '.join(step)}"  # a busy machine: not remembered
        if done.returncode != 0:
            why = f"{' '.join(step[-len(needed):])}: {(done.stderr or done.stdout).strip()[-500:]}"
            folder.mkdir(parents=True, exist_ok=True)  # the venv step may have failed before it made the folder
            (folder / FAILED).write_text(why, encoding="utf-8")
            return why
        if number == 0:  # the base's site-packages, with its own .pth files (editables, a release's base)
            site = next(folder.glob("lib/python*/site-packages"))
            (site / BASE_PTH).write_text(f"import site; site.addsitedir({below!r})\n", encoding="utf-8")
    (folder / READY).write_text("\n".join(needed) + "\n", encoding="utf-8")
    return None


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


@functools.lru_cache(maxsize=16)  # keyed by the folders and their times: a few per run
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


@functools.lru_cache(maxsize=16)  # keyed by the folders and their times: a few per run
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


@functools.lru_cache(maxsize=16)  # keyed by the folders and their times: a few per run
def _hidden_files(name: str, path: Key, where: str | None = None) -> list[str] | str:
    """The files and folders that hide distribution `name` (its copy in the folder `where` only, if
    given), or why it cannot be hidden.

    In each folder it is installed in: its metadata folder, and for each file its RECORD lists, the
    highest folder above it that holds no file another distribution lists (so `optimum/quanto` goes,
    and `optimum/` with it where nothing else lives there), else the file itself."""
    hidden: set[str] = set()
    for dist in _distributions(path):
        if _normal(dist.metadata["Name"] or "") != name:
            continue
        base = os.path.realpath(str(dist.locate_file("")))
        if where is not None and base != where:
            continue
        info = getattr(dist, "_path", None)
        if info is None or dist.files is None:
            return f"{name} does not list its files (no RECORD)"
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


def installed_files(name: str, folder: Path) -> list[str] | str:
    """What distribution `name` installed in the folder `folder` (its metadata folder and the highest folders
    of its files that no other distribution there shares), or why that cannot be told: what hiding it hides
    (`absence`), for a tool that removes it from a copy of an environment (tests/verify/adversarial.py)."""
    return _hidden_files(_normal(name), _key([str(folder)]))


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


__all__ = ["FAILED", "READY", "Absence", "absence", "built_python", "essential", "installed_files", "not_met",
           "refused", "runs_in", "unmet"]


def main(argv: list[str]) -> int:
    """`python -m errorkb.verify.requirements --build [ID...]`: build the environments that the
    snippets' `requires:` need (`pins`), in the project of the current folder, and print the ids of the
    entries they serve, one a line (for `errorkb verify`)."""
    from errorkb.core.load import load_project_entries
    from errorkb.core.project import load_project

    if not argv or argv[0] != "--build":
        print(main.__doc__, file=sys.stderr)
        return 2
    project = load_project(Path.cwd())
    wanted = set(argv[1:])
    served: dict[tuple[str, ...], list[str]] = {}
    for one in load_project_entries(project).entries:
        for role, _ in one.entry.snippet_files():
            if (needed := pins(one.entry, role)) and (not wanted or one.entry.id in wanted):
                served.setdefault(needed, []).append(one.entry.id)
    failed = 0
    for needed, ids in sorted(served.items()):
        if pinned_python(project.cache_dir, needed) is None and (why := build_pinned_env(project.cache_dir, needed)):
            print(f"errorkb: {', '.join(needed)}: {why}", file=sys.stderr)
            failed += 1
            continue
        print("\n".join(dict.fromkeys(ids)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
