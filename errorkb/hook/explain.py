"""What the hook prints after a traceback: the matching entry, its fix, whether the installed
release raises it, and where its page is. Imported only once an exception has happened.

The index is the one that ships inside the package (`index.json`, generated from the entries by
`errorkb hook index`; a test fails when it is stale) rather than the site's published
`api/errors/index.json` cached under the user's cache folder: the hook must work offline, on
the first error, in an environment that never ran errorkb, and a file in the package is there in
every such case, versioned with the code that reads it; a cache would need a download first and
a rule for when it is too old.

Bounded: the index is read once, each message is capped at `CAP` characters, each wording is
matched with the linear template matcher, at most `CHAIN` exceptions of a chain are tried and
the whole search stops at `BUDGET` seconds. Silent when nothing matches. Nothing here imports
the runtime, the library, pydantic or the rest of errorkb.
"""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from errorkb.core.message import MessageTemplate, TemplateSyntaxError

INDEX = Path(__file__).resolve().parent / "index.json"
CAP = 1 << 16  # characters of a message examined
CHAIN = 8  # exceptions of a chain (cause, context) tried, the raised one first
BUDGET = 0.5  # seconds the whole search may take
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@dataclass(frozen=True)
class Hit:
    entry: dict[str, Any]
    exception: BaseException  # the exception of the chain that matched


def explain(kind: type[BaseException], value: BaseException, traceback: object, stream: IO[str] | None = None,
            index_path: Path = INDEX) -> None:
    """Print the block for `value` when it matches an entry; otherwise print nothing."""
    text = describe(value, index_path)
    if text is not None:
        out = stream or sys.stderr
        out.write(text)
        out.flush()


def describe(value: BaseException, index_path: Path = INDEX) -> str | None:
    """The block for `value`, or None when no entry matches (the pytest hint prints it too)."""
    if not isinstance(value, Exception):  # KeyboardInterrupt, SystemExit: never an entry's error
        return None
    index = load_index(index_path)
    hit = find(value, index, time.monotonic() + BUDGET)
    return None if hit is None else block(hit, index)


def load_index(path: Path = INDEX) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return data if isinstance(data, dict) else {}


def chain(value: BaseException) -> list[BaseException]:
    """The exception, then its cause or context, and so on: at most `CHAIN`, each once."""
    found: list[BaseException] = []
    current: BaseException | None = value
    while current is not None and len(found) < CHAIN and all(current is not seen for seen in found):
        found.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return found


def find(value: BaseException, index: dict[str, Any], deadline: float) -> Hit | None:
    """The entry whose wording matches an exception of the chain: the raised one first, then
    the most specific wording."""
    for exception in chain(value):
        try:
            message = str(exception)[:CAP]
        except Exception:
            continue
        name = type(exception).__name__
        best: tuple[int, dict[str, Any]] | None = None
        for entry in index.get("entries") or []:
            if time.monotonic() > deadline:
                return None
            if entry.get("frame") and not _raised_in(exception, entry["frame"]):
                continue
            for wording in entry.get("wordings") or []:
                if str(wording.get("exception", "")).rsplit(".", 1)[-1] != name:
                    continue
                if _matches(str(wording.get("message", "")), message):
                    fixed = int(wording.get("fixed") or 0)
                    if best is None or fixed > best[0]:
                        best = (fixed, entry)
                    break
        if best is not None:
            return Hit(best[1], exception)
    return None


MAX_FRAMES = 1000


def _raised_in(exception: BaseException, frame: dict[str, Any]) -> bool:
    """Whether a frame of the exception's traceback runs `frame["function"]` in the library file
    `frame["file"]` (as installed: `<package>/<file>.py`); the first `MAX_FRAMES` frames are looked at."""
    file, function = "/" + str(frame.get("file", "")), str(frame.get("function", ""))
    traceback, seen = exception.__traceback__, 0
    while traceback is not None and seen < MAX_FRAMES:
        code = traceback.tb_frame.f_code
        if code.co_name == function and code.co_filename.replace("\\", "/").endswith(file):
            return True
        traceback, seen = traceback.tb_next, seen + 1
    return False


def _matches(template: str, message: str) -> bool:
    try:
        return MessageTemplate.parse(template.strip()).match(message.strip(" \t\n\v\f\r")) is not None
    except TemplateSyntaxError:
        return False


def installed_release(distribution: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return None


def raises_at(claim: str, release: str) -> bool | None:
    """Whether the range `claim` ('>=4.49,<5.0', parts joined by '||') holds `release`."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.version import InvalidVersion, Version

    try:
        version = Version(release)
        return any(SpecifierSet(part.strip()).contains(version, prereleases=True) for part in claim.split("||"))
    except (InvalidSpecifier, InvalidVersion):
        return None


def release_line(entry: dict[str, Any], library: dict[str, Any]) -> str:
    """Whether the installed release raises the error, as the entry states its range."""
    name = str(library.get("name") or "the library")
    installed = installed_release(str(library.get("distribution") or name))
    claim, pinned = entry.get("raises"), entry.get("pinned")
    if installed is None:
        return f"{name} is not installed here" + (f"; the entry documents {claim}" if claim else "")
    if claim:
        state = raises_at(str(claim), installed)
        said = "raises it" if state else "does not raise it as documented" if state is False else "may raise it"
        return f"{name} {installed} (installed) {said}: the entry documents {claim}"
    if pinned == installed:
        return f"{name} {installed} (installed) raises it: the entry was verified at that release"
    if pinned:
        return f"{name} {installed} is installed; the entry was verified at {pinned} (it records no release range)"
    return f"{name} {installed} is installed"


def block(hit: Hit, index: dict[str, Any]) -> str:
    """The few lines printed after the traceback (control characters removed: entry text comes
    from strangers' pull requests)."""
    entry = hit.entry
    site = index.get("site") or ""
    url = f"{site}{entry.get('url', '')}" if site else str(entry.get("url", ""))
    lines = [f"errorkb: a documented error — {entry.get('title', entry.get('id'))}",
             f"  fix:  {entry.get('fix', '')}",
             f"  {release_line(entry, index.get('library') or {})}",
             f"  page: {url}"]
    return "\n" + "\n".join(_CONTROL.sub("", line) for line in lines) + "\n"
