"""Which files a verdict is keyed on, each list with one owner, and read once for both sides: the key (`cache`'s
verifier fingerprint, `targets.fingerprint` of the bundled package) digests the very bytes the jail shows a check
(`sandbox.package_shadow`, `Sandbox.wrap`), never a second read of the files (which could differ: an edit between
the key's read and the shadow's making keyed a verdict on bytes it did not run). Of errorkb, the one read is this
process's (`verdict_bytes`); of a keyed package, the run's (`read_keyed`, held by the engine and given to the
sandbox). Each read by the one procedure every result keyed on code obeys (`errorkb.core.filebytes`: regular files
only, each read once, digested in a fixed order, each file delimited), which the rehearsal's record of rendered pages
obeys too. Light on purpose: a warm run that answers from the cache loads no sandbox, and a bare interpreter
checking the sandbox needs no pydantic."""

from __future__ import annotations

import functools
from pathlib import Path

from errorkb.core.filebytes import Shadowed, digest, found_in, read_regular
from errorkb.verify.inside.library import package_dirs

_PACKAGE = Path(__file__).resolve().parents[1]  # the errorkb package the harness runs
_HERE = _PACKAGE / "verify"
# The code a verdict can depend on besides the verifier's own folder and what runs inside the
# check (`inside/`): what the judge reads of an entry (its model, message templates, release
# ranges, the lint verify obeys) and snippets, the runtime plugs, the key's own definition, and
# every other module of errorkb that those import (how an entry is loaded, the interpreter a
# check starts, the record a verdict is written into): `test_verify_cache` walks their imports and
# fails on one that is neither here nor in NOT_IN_VERDICTS_ELSEWHERE, so the list cannot fall behind.
_VERIFIER_SOURCES = [_HERE, _HERE / "inside",
                     *(_PACKAGE / "core" / name for name in (
                         "entry.py", "message.py", "snippets.py", "releases.py", "lint.py", "load.py", "project.py",
                         "prose.py", "encoding.py", "nesting.py", "problems.py", "logsafe.py", "interpreter.py",
                         "cachetrust.py", "words.py", "tags.py", "filebytes.py", "__init__.py")),
                     _PACKAGE / "plugs",
                     *(_PACKAGE / "results" / name for name in ("keys.py", "kept.py", "records.py", "report.py",
                                                                "store.py", "__init__.py")),
                     _PACKAGE / "source" / "upstream.py", _PACKAGE / "source" / "__init__.py",
                     _PACKAGE / "__init__.py"]
# Files of the verifier that choose which checks run and print what came out, and never make a
# verdict: changing them must not throw every cached verdict away (the version matrix re-measures
# 66 releases when it does). `test_verify_cache` checks each still exists.
NOT_IN_VERDICTS = ("matrix.py", "output.py")
# Modules the verdict's code imports that cannot change a verdict, each with why (the test above checks
# each is still imported, so a stale exemption is found too).
NOT_IN_VERDICTS_ELSEWHERE = {
    "lookup": "the diagnosis of pastes: the loader imports it only to check an entry's `diagnosis.other_causes` "
              "wordings, a problem `errorkb check` reports; no check reads it",
}


def verdict_sources() -> list[Path]:
    """Every file whose code can change a verdict."""
    found = []
    for root in _VERIFIER_SOURCES:
        for path in sorted(root.glob("*.py")) if root.is_dir() else [root]:
            if not (path.parent == _HERE and path.name in NOT_IN_VERDICTS):
                found.append(path)
    return found


Files = tuple[tuple[str, bytes], ...]  # (path in the package, its bytes), in a fixed order
Keyed = tuple[str, str, Files]  # one read of a keyed package: (its name, its top-level folder, its keyed files)


def read_verdict_sources() -> Files:
    """Each of `verdict_sources` as (its path in the package, its bytes), read now (`watch.identity`: has errorkb's
    code changed on disk?), by the rules of `errorkb.core.filebytes` (a FIFO or a device is refused, never waited
    on). A source the harness would not import (`_imported_in_its_place`) is refused too. What a verdict is keyed
    on and shown is `verdict_bytes`, this process's one read."""
    files = []
    for path in verdict_sources():
        _imported_in_its_place(path)
        files.append((path.relative_to(_PACKAGE).as_posix(), read_regular(path)))
    return tuple(files)


def _imported_in_its_place(path: Path) -> None:
    """Refuse a verdict source that a module of the same name shadows in its folder (a package `judge/` beside
    `judge.py`, a compiled `judge.<abi>.so`): the harness imports that file and runs it, the key digests this one
    and the check is shown this one, so a verdict would be keyed on code it did not come from."""
    if path.name == "__init__.py":
        return  # a package's folder is found before any module of its name
    name = ".".join(("errorkb", *path.relative_to(_PACKAGE).with_suffix("").parts))
    spec = found_in(name, [str(path.parent)])
    origin = spec.origin if spec is not None and spec.has_location else None
    if isinstance(origin, str) and Path(origin).resolve() != path.resolve():
        shown = Path(origin).relative_to(_PACKAGE) if Path(origin).is_relative_to(_PACKAGE) else origin
        raise Shadowed(path, str(shown))


@functools.cache
def verdict_bytes() -> Files:
    """This process's one read of `verdict_sources`: what the verifier's fingerprint digests
    (`cache.verifier_fingerprint`) and what a check is shown of errorkb (`sandbox.package_shadow`), the same bytes
    by construction, whenever either is first asked for and whatever the files hold by then."""
    return read_verdict_sources()


def keyed_files(name: str) -> tuple[str, Files] | None:
    """Of the package `name` (`top.inner`), found without importing it: its top-level folder, and the files of it a
    check is shown and its target's verdicts are keyed on, as (path under that folder, bytes): each `*.py` under
    `name`'s own folder, and each enclosing package's `__init__.py` (importing `name` runs them). The one owner of
    both: `targets.fingerprint` digests these bytes and `Sandbox.wrap` shows exactly them. Not the folder's data
    files (an index that changes with every lookup rule would throw each verdict away), a build copy, `__pycache__`
    (a stale `.pyc` runs in place of its source): a check reads none of them. None where it is not installed. Read
    by the rules of `errorkb.core.filebytes`: a file that is no regular file is refused (OSError), never waited on."""
    top, *inner = name.split(".")
    folders = package_dirs(top)
    if not folders:
        return None
    root = folders[0]
    paths = [root.joinpath(*inner[:depth], "__init__.py") for depth in range(len(inner))]
    paths = [path for path in paths if path.is_file()] + sorted(root.joinpath(*inner).rglob("*.py"))
    return str(root), tuple((path.relative_to(root).as_posix(), read_regular(path)) for path in paths)


def read_keyed(names: tuple[str, ...] | list[str]) -> tuple[Keyed, ...]:
    """One read of each installed package of `names` (`keyed_files`): the run's, which its key digests
    (`keyed_digest`) and its sandbox shows, the same bytes (the engine holds it; nothing reads the files again)."""
    return tuple((name, *found) for name in dict.fromkeys(names) if (found := keyed_files(name)) is not None)


def keyed_digest(files: Files) -> str:
    """The digest of a keyed package's files (one read of `keyed_files`): its target's fingerprint's, by the one
    procedure every result keyed on code uses (`filebytes.digest`)."""
    return digest(files)


__all__ = ["NOT_IN_VERDICTS", "NOT_IN_VERDICTS_ELSEWHERE", "Files", "Keyed", "keyed_digest", "keyed_files",
           "read_keyed", "read_verdict_sources", "verdict_bytes", "verdict_sources"]
